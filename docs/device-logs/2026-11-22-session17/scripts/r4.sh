#!/bin/bash
export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
python3 .scratch/s17/san_tiles.py > /dev/null 2>&1   # fill the cubin cache outside the sanitizer
for tool in memcheck racecheck synccheck; do
  echo "=== $tool"; timeout 150 compute-sanitizer --tool $tool --error-exitcode 9 python3 .scratch/s17/san_tiles.py 2>&1 | tail -20; echo "rc ${PIPESTATUS[0]}"
done > $OUT/04-sanitizer-tiles.log 2>&1
grep "===\|rc \|ERROR\|FAIL\|Error" $OUT/04-sanitizer-tiles.log | head -30
timeout 120 python3 -m pytest -q -m gpu tests/test_grouped_gemm_mtiles.py > $OUT/05-grouped-mtiles-tests.log 2>&1; tail -2 $OUT/05-grouped-mtiles-tests.log
NVFP4RT_GIT_REVISION=$(cat .scratch/s17/rev) timeout 200 python3 tools/bench.py dual_gemm --results-dir $OUT > $OUT/06-bench-dual.log 2>&1
grep "\[bench\]  \|ceilings\] read\|fp16 " $OUT/06-bench-dual.log | cut -c1-300
