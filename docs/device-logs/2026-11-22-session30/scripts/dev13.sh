export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
export NVFP4RT_GIT_REVISION=49d73433c8c6
for op in gemm dual_gemm grouped_gemm; do timeout 150 python3 tools/bench.py $op --results-dir $OUT > $OUT/15-bench-$op.log 2>&1; echo "rc $?" >> $OUT/15-bench-$op.log; tail -8 $OUT/15-bench-$op.log; done
timeout 200 compute-sanitizer --tool synccheck --error-exitcode 9 python3 .scratch/s26/san26.py > $OUT/16-synccheck.log 2>&1; echo "rc $?" >> $OUT/16-synccheck.log
tail -2 $OUT/16-synccheck.log
