#!/bin/bash
# session 8, batch c: GPU tests (K-split choice, profiler), bench of the three GEMM ops, profile (H100)
export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/00-smi.txt
timeout 200 python3 -m pytest -q -m gpu tests/test_gemm_wgmma_cluster.py tests/test_profile_cluster_kernel.py tests/test_gemm.py -k "ksplit or default_plans or counters or gemm" > $OUT/08-pytest.log 2>&1
for op in gemm dual_gemm grouped_gemm; do NVFP4RT_GIT_REVISION=$REV python3 tools/bench.py $op --results-dir $OUT; done > $OUT/09-bench.log 2>&1
timeout 100 python3 tools/profile_cluster_kernel.py gemm > $OUT/10-profile-gemm.log 2>&1
tail -3 $OUT/08-pytest.log; grep -E "^\[bench\]|ceilings" $OUT/09-bench.log; cat $OUT/10-profile-gemm.log
