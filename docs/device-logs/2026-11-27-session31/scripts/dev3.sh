# Session 31, device run 3 (H100): the tensor floor's GPU tests, the floor report, then the bench of the three
# GEMM-family ops with the same-size tensor floor beside each shape.
export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c PYTHONUNBUFFERED=1 NVFP4RT_GIT_REVISION=1d0044509a77
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv > $OUT/05-device.log 2>&1
timeout 200 python3 -m pytest -q -rs -p no:cacheprovider tests/test_tensor_floor.py > $OUT/06-pytest.log 2>&1; echo "rc $?" >> $OUT/06-pytest.log
timeout 200 python3 tools/floor_report.py > $OUT/07-floor-report.log 2>&1; echo "rc $?" >> $OUT/07-floor-report.log
tail -n 2 $OUT/06-pytest.log; cat $OUT/07-floor-report.log
for op in gemm dual_gemm grouped_gemm; do
  timeout 280 python3 -m nvfp4rt.cli bench $op --results-dir $OUT > $OUT/08-bench-$op.log 2>&1; echo "rc $?" >> $OUT/08-bench-$op.log
  grep "\[bench\]   \|rc \|fp16" $OUT/08-bench-$op.log
done
