#!/bin/bash
export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
timeout 500 python3 -m pytest -q -rs -m gpu tests/test_dual_gemm_tiles.py tests/test_dual_gemm_cluster.py tests/test_dual_gemm.py tests/test_grouped_gemm.py tests/test_grouped_gemm_cluster.py tests/test_grouped_gemm_mtiles.py tests/test_profile_cluster_kernel.py tests/test_bench.py > $OUT/16-gpu-tests-review2.log 2>&1
echo "rc $?" >> $OUT/16-gpu-tests-review2.log; tail -6 $OUT/16-gpu-tests-review2.log
