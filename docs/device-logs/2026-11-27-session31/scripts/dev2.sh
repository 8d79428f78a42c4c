# Session 31, device run 2: the bench of the three GEMM-family ops, with the same-size tensor floor beside each shape.
export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c PYTHONUNBUFFERED=1
for op in gemm dual_gemm grouped_gemm; do
  timeout 280 python3 -m nvfp4rt.cli bench $op --results-dir $OUT > $OUT/bench-$op.log 2>&1; echo "rc $?" >> $OUT/bench-$op.log
  grep "\[bench\]   \|rc " $OUT/bench-$op.log
done
