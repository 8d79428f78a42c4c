#!/bin/bash
export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
timeout 200 python3 .scratch/s16/prof.py > $OUT/04-api-profile.log 2>&1
grep "====" $OUT/04-api-profile.log
timeout 380 python3 -m pytest -q -m gpu -x tests/test_gemm.py tests/test_gemm_wgmma_cluster.py tests/test_dual_gemm.py tests/test_dual_gemm_cluster.py tests/test_grouped_gemm.py tests/test_grouped_gemm_mtiles.py tests/test_grouped_gemm_cluster.py tests/test_gemv.py > $OUT/05-gpu-tests.log 2>&1
tail -5 $OUT/05-gpu-tests.log
