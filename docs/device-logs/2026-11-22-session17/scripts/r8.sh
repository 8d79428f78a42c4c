#!/bin/bash
export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
timeout 200 python3 -m pytest -q -rs -m gpu tests/test_profile_cluster_kernel.py tests/test_bench.py > $OUT/13-gpu-tests-profile.log 2>&1
echo "rc $?" >> $OUT/13-gpu-tests-profile.log; tail -3 $OUT/13-gpu-tests-profile.log
timeout 200 python3 tools/profile_cluster_kernel.py dual_gemm --shapes 256,4096,7168 256,3072,4096 > $OUT/14-profile-dual-tiles.log 2>&1
echo "rc $?" >> $OUT/14-profile-dual-tiles.log; cat $OUT/14-profile-dual-tiles.log | cut -c1-250
