# Session 31, device run 1: the tensor floor's GPU tests, memcheck and racecheck on it, the floor report.
export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv > $OUT/00-device.log 2>&1
timeout 240 python3 -m pytest -q -rs -p no:cacheprovider tests/test_tensor_floor.py tests/test_bench.py > $OUT/01-pytest.log 2>&1; echo "rc $?" >> $OUT/01-pytest.log
for tool in memcheck racecheck; do
  timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 python3 -m pytest -q -p no:cacheprovider tests/test_tensor_floor.py -k stores > $OUT/02-$tool.log 2>&1; echo "rc $?" >> $OUT/02-$tool.log
done
timeout 200 python3 tools/floor_report.py > $OUT/03-floor-report.log 2>&1; echo "rc $?" >> $OUT/03-floor-report.log
tail -3 $OUT/01-pytest.log; tail -4 $OUT/02-*.log; cat $OUT/03-floor-report.log
