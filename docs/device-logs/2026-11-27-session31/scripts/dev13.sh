# Session 31, device run 13 (asked for an H200; an H100 came): the GPU tests of the floor, the bench and the lab, then the bench of the three
# GEMM-family ops with both floors (tensor floor; op floor: the same with the inputs streamed).
export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c PYTHONUNBUFFERED=1 NVFP4RT_GIT_REVISION=9675c24512da
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv > $OUT/40-device.log 2>&1
timeout 200 python3 -m pytest -q -rs -p no:cacheprovider tests/test_tensor_floor.py tests/test_bench.py tests/test_lab.py > $OUT/40-pytest.log 2>&1; echo "rc $?" >> $OUT/40-pytest.log
tail -n 2 $OUT/40-pytest.log
for op in gemm dual_gemm grouped_gemm; do
  timeout 280 python3 -m nvfp4rt.cli bench $op --results-dir $OUT > $OUT/41-bench-$op.log 2>&1; echo "rc $?" >> $OUT/41-bench-$op.log
  grep "\[bench\]   \|rc \|fp16" $OUT/41-bench-$op.log
done
