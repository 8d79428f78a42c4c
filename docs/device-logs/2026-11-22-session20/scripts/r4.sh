#!/bin/bash
# compute-sanitizer memcheck on the dual (tiles + cluster) and grouped kernels; the dual cluster kernel's A_UNIT A/B;
# the GEMM, dual and grouped benches at the commit given as $1
export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
S=$OUT/08-sanitizer-dual-grouped.log
: > $S
for args in "tools/dual_gemm_check.py --small --kernel tiles" "tools/dual_gemm_check.py --small --kernel cluster" "tools/grouped_gemm_check.py --small"; do
  echo "== memcheck $args" >> $S
  timeout 100 compute-sanitizer --tool memcheck --error-exitcode 9 python3 $args >> $S 2>&1; echo "rc $?" >> $S
done
grep -E "^rc|ERROR SUMMARY|FAIL" $S
timeout 120 python3 .scratch/s20/exp3.py > $OUT/09-dual-cluster-aunit.log 2>&1; echo "rc $?" >> $OUT/09-dual-cluster-aunit.log
grep -E "kernel /|FAIL|rc " $OUT/09-dual-cluster-aunit.log
export NVFP4RT_GIT_REVISION=$1
for op in gemm dual_gemm grouped_gemm; do
  timeout 100 python3 tools/bench.py $op --results-dir $OUT > $OUT/10-bench-$op.log 2>&1; echo "rc $?" >> $OUT/10-bench-$op.log
  tail -7 $OUT/10-bench-$op.log
done
