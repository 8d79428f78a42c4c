#!/bin/bash
export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
timeout 200 python3 .scratch/s18/api.py > $OUT/05-api.log 2>&1
echo "rc $?" >> $OUT/05-api.log
timeout 380 python3 -m pytest -q -rs -m gpu tests/test_array.py tests/test_gemv.py tests/test_gemv_geometry.py tests/test_grouped_gemm.py tests/test_gemm.py tests/test_dual_gemm.py -x > $OUT/06-gpu-tests.log 2>&1
echo "rc $?" >> $OUT/06-gpu-tests.log
cut -c1-200 $OUT/05-api.log; tail -5 $OUT/06-gpu-tests.log
