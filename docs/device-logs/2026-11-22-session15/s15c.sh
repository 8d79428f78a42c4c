#!/bin/bash
export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
timeout 540 python3 -m pytest -q -m gpu tests/test_gemm_wgmma_cluster.py tests/test_gemm.py tests/test_gemm_tail_helpers.py tests/test_profile_cluster_kernel.py tests/test_dual_gemm_cluster.py tests/test_grouped_gemm_cluster.py > $OUT/08-gpu-tests.log 2>&1
tail -5 $OUT/08-gpu-tests.log
