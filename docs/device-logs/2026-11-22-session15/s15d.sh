#!/bin/bash
export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
timeout 200 python3 .scratch/s15/big_gemm.py > $OUT/09-big-gemm.log 2>&1; cat $OUT/09-big-gemm.log | cut -c1-200
NVFP4RT_GIT_REVISION=$(cat .scratch/s15/rev) timeout 330 python3 tools/bench.py grouped_gemm --results-dir $OUT > $OUT/10-bench-grouped.log 2>&1
tail -12 $OUT/10-bench-grouped.log
