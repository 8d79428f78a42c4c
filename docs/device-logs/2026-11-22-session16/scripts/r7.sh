#!/bin/bash
export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
timeout 500 python3 -m pytest -q -m gpu tests/test_gemm_wgmma_cluster.py tests/test_dual_gemm_cluster.py tests/test_gemm.py tests/test_dual_gemm.py > $OUT/13-gpu-tests-review.log 2>&1
tail -3 $OUT/13-gpu-tests-review.log
