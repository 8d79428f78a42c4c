#!/bin/bash
# compute-sanitizer memcheck on the dual (tiles + cluster) and grouped kernels' small cases; the GEMM and dual benches
export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
S=$OUT/07-sanitizer-dual-grouped.log
for args in "tools/dual_gemm_check.py --small --kernel tiles" "tools/dual_gemm_check.py --small --kernel cluster" "tools/grouped_gemm_check.py --small"; do
  echo "== memcheck $args" >> $S
  timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 python3 $args >> $S 2>&1; echo "rc $?" >> $S
done
grep -E "^rc|ERROR SUMMARY|FAIL" $S
export NVFP4RT_GIT_REVISION=$1
timeout 200 python3 tools/bench.py gemm --results-dir $OUT > $OUT/08-bench-gemm.log 2>&1; echo "rc $?" >> $OUT/08-bench-gemm.log
tail -8 $OUT/08-bench-gemm.log
timeout 200 python3 tools/bench.py dual_gemm --results-dir $OUT > $OUT/09-bench-dual.log 2>&1; echo "rc $?" >> $OUT/09-bench-dual.log
tail -8 $OUT/09-bench-dual.log
