export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c NVFP4RT_GIT_REVISION=19f4dbc
mkdir -p $OUT/results
for op in grouped_gemm dual_gemm gemm; do
  start=$(date +%s)
  timeout 190 python3 tools/bench.py $op --results-dir $OUT/results > $OUT/20-bench-$op-19f4dbc.log 2>&1; echo "$op rc=$? $(( $(date +%s) - start ))s"
  tail -12 $OUT/20-bench-$op-19f4dbc.log
done
