#!/bin/bash
export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
timeout 400 python3 -m pytest -q -rs -m gpu tests/test_dual_gemm_tiles.py tests/test_dual_gemm_cluster.py tests/test_grouped_gemm_cluster.py tests/test_grouped_gemm_mtiles.py > $OUT/17-gpu-tests-final.log 2>&1
echo "rc $?" >> $OUT/17-gpu-tests-final.log; tail -3 $OUT/17-gpu-tests-final.log
