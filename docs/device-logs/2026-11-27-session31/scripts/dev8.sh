# Session 31, device run 8: the floor kernel with its input stream: GPU tests, memcheck, racecheck and synccheck on
# the store/stream test, and the floor report with the inputs streamed.
export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c PYTHONUNBUFFERED=1 NVFP4RT_GIT_REVISION=e74a6caa9021
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv > $OUT/24-device.log 2>&1
timeout 280 python3 -m pytest -q -rs -p no:cacheprovider tests/test_tensor_floor.py tests/test_bench.py tests/test_lab.py > $OUT/25-pytest.log 2>&1; echo "rc $?" >> $OUT/25-pytest.log
for tool in memcheck racecheck synccheck; do
  timeout 150 compute-sanitizer --tool $tool --error-exitcode 9 python3 -m pytest -q -p no:cacheprovider tests/test_tensor_floor.py -k stores > $OUT/26-$tool.log 2>&1; echo "rc $?" >> $OUT/26-$tool.log
done
timeout 250 python3 tools/floor_report.py > $OUT/27-floor-report.log 2>&1; echo "rc $?" >> $OUT/27-floor-report.log
cat $OUT/24-device.log; tail -n 3 $OUT/25-pytest.log; tail -n 3 $OUT/26-*.log; cat $OUT/27-floor-report.log
