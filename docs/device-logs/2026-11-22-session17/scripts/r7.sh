#!/bin/bash
export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
timeout 300 python3 -m pytest -q -rs -m gpu tests/test_profile_cluster_kernel.py tests/test_bench.py tests/test_dual_gemm_tiles.py > $OUT/10-gpu-tests.log 2>&1
echo "rc $?" >> $OUT/10-gpu-tests.log; tail -4 $OUT/10-gpu-tests.log
timeout 200 python3 tools/dual_gemm_check.py --no-time > $OUT/11-dual-check.log 2>&1; echo "rc $?" >> $OUT/11-dual-check.log
timeout 200 python3 tools/dual_gemm_check.py --kernel tiles > $OUT/12-dual-check-tiles.log 2>&1; echo "rc $?" >> $OUT/12-dual-check-tiles.log
grep -c PASS $OUT/11-dual-check.log $OUT/12-dual-check-tiles.log; grep "FAIL\|rc " $OUT/11-dual-check.log $OUT/12-dual-check-tiles.log | head; tail -8 $OUT/12-dual-check-tiles.log | cut -c1-200
