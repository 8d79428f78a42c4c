export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
REV=6e95b9f18aa4
timeout 120 compute-sanitizer --tool synccheck --error-exitcode 9 python3 .scratch/s26/san26.py > $OUT/08-synccheck.log 2>&1; echo "rc $?" >> $OUT/08-synccheck.log
tail -3 $OUT/08-synccheck.log
for op in gemm dual_gemm; do
  start=$(date +%s)
  NVFP4RT_GIT_REVISION=$REV timeout 220 python3 tools/bench.py $op --results-dir $OUT > $OUT/09-bench-$op.log 2>&1; echo "$op rc=$? $(( $(date +%s) - start ))s"
  tail -6 $OUT/09-bench-$op.log
done
