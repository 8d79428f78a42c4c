#!/bin/bash
export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
timeout 560 python3 -m pytest -q -m gpu -x tests/test_dual_gemm_tiles.py tests/test_dual_gemm_cluster.py tests/test_dual_gemm.py tests/test_gemm_wgmma_cluster.py > $OUT/03-gpu-tests.log 2>&1
echo "rc $?" >> $OUT/03-gpu-tests.log
tail -15 $OUT/03-gpu-tests.log
