#!/bin/bash
# session 8, batch f: profiler GPU tests and the dual profile with the K split (H100)
export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/00-smi.txt
timeout 200 python3 -m pytest -q -m gpu tests/test_profile_cluster_kernel.py > $OUT/16-pytest-profile.log 2>&1
timeout 120 python3 tools/profile_cluster_kernel.py dual_gemm > $OUT/17-profile-dual.log 2>&1
tail -3 $OUT/16-pytest-profile.log; cat $OUT/17-profile-dual.log
