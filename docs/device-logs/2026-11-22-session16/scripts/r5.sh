#!/bin/bash
export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
REV=$(cat .scratch/s16/rev)
timeout 120 python3 -m pytest -q -m gpu tests/test_bench.py > $OUT/08-bench-gpu-tests.log 2>&1; tail -2 $OUT/08-bench-gpu-tests.log
for op in gemv gemm grouped_gemm dual_gemm; do
  echo "=== $op" ; NVFP4RT_GIT_REVISION=$REV timeout 200 python3 tools/bench.py $op --results-dir $OUT 2>&1
done > $OUT/09-bench.log
grep "\[bench\]  \|ceilings\] read\|fp16 " $OUT/09-bench.log | cut -c1-260
