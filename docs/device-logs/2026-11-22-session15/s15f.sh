#!/bin/bash
export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
timeout 120 python3 -m pytest -q -m gpu tests/test_grouped_gemm_mtiles.py tests/test_grouped_gemm_cluster.py -k "mtiles or public_api" > $OUT/12-gpu-tests.log 2>&1
tail -2 $OUT/12-gpu-tests.log
NVFP4RT_GIT_REVISION=$(cat .scratch/s15/rev) timeout 330 python3 tools/bench.py grouped_gemm --results-dir $OUT > $OUT/13-bench-grouped.log 2>&1
tail -8 $OUT/13-bench-grouped.log
