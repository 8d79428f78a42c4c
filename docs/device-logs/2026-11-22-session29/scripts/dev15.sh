export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
REV=$(cat .scratch/s29/rev)
timeout 150 compute-sanitizer --tool synccheck --error-exitcode 9 python3 .scratch/s26/san26.py > $OUT/30-synccheck.log 2>&1; echo "rc $?" >> $OUT/30-synccheck.log
tail -2 $OUT/30-synccheck.log
for op in gemm dual_gemm grouped_gemm; do
  NVFP4RT_GIT_REVISION=$REV timeout 150 python3 tools/bench.py $op --results-dir $OUT > $OUT/31-bench-$op.log 2>&1; echo "$op rc=$?"
  grep "\[bench\]" $OUT/31-bench-$op.log | tail -4
done
