#!/bin/bash
# session 8, batch b: occupancy, GPU tests of the GEMM family, A/B, bench, profile (H100)
export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/00-smi.txt
( python3 .scratch/s8/occ.py; python3 .scratch/s8/ks_ab.py ) > $OUT/04-occupancy-ab.log 2>&1
timeout 300 python3 -m pytest -q -m gpu tests/test_gemm_wgmma_cluster.py tests/test_gemm.py tests/test_streamk_head_check.py tests/test_profile_cluster_kernel.py > $OUT/05-pytest-gemm.log 2>&1
NVFP4RT_GIT_REVISION=$REV python3 tools/bench.py gemm --results-dir $OUT > $OUT/06-bench-gemm.log 2>&1
timeout 100 python3 tools/profile_cluster_kernel.py gemm > $OUT/07-profile-gemm.log 2>&1
cat $OUT/04-occupancy-ab.log; tail -4 $OUT/05-pytest-gemm.log; tail -8 $OUT/06-bench-gemm.log; tail -12 $OUT/07-profile-gemm.log
