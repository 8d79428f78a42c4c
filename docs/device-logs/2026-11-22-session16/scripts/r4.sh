#!/bin/bash
export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
REV=$(cat .scratch/s16/rev)
python3 .scratch/s16/san_whole.py > /dev/null 2>&1   # warm the cubin cache
{ for tool in memcheck racecheck synccheck; do echo "== $tool san_whole"; timeout 150 compute-sanitizer --tool $tool --error-exitcode 9 python3 .scratch/s16/san_whole.py 2>&1 | tail -4; echo "rc=${PIPESTATUS[0]}"; done
  echo "== memcheck sanitize_kernels (GEMV part first)"; timeout 200 compute-sanitizer --tool memcheck --error-exitcode 9 python3 tools/sanitize_kernels.py 2>&1 | tail -4; echo "rc=${PIPESTATUS[0]}"; } > $OUT/06-sanitizer.log 2>&1
grep "==\|rc=\|ERROR SUMMARY" $OUT/06-sanitizer.log
NVFP4RT_GIT_REVISION=$REV timeout 250 python3 tools/bench.py gemv --results-dir $OUT > $OUT/07-bench-gemv.log 2>&1
tail -6 $OUT/07-bench-gemv.log
