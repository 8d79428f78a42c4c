#!/bin/bash
export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
timeout 250 compute-sanitizer --tool memcheck --error-exitcode 9 python3 -m pytest -q -m gpu tests/test_array.py tests/test_gemv.py -k "not leak" -x > $OUT/12-sanitizer-raw.log 2>&1
echo "rc $?" >> $OUT/12-sanitizer-raw.log
timeout 280 compute-sanitizer --tool memcheck --error-exitcode 9 python3 -m pytest -q -m gpu tests/test_grouped_gemm.py -k "raw or repeat" -x >> $OUT/12-sanitizer-raw.log 2>&1
echo "rc $?" >> $OUT/12-sanitizer-raw.log
grep -E "passed|failed|ERROR SUMMARY|^rc" $OUT/12-sanitizer-raw.log
