# Session 31, device run 9: the floor kernel's evict-first stream: GPU tests, memcheck and racecheck on the
# store/stream test, and the floor report (floor, floor with the inputs streamed, plain read of the inputs).
export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c PYTHONUNBUFFERED=1 NVFP4RT_GIT_REVISION=5498b333dab7
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv > $OUT/28-device.log 2>&1
timeout 200 python3 -m pytest -q -rs -p no:cacheprovider tests/test_tensor_floor.py > $OUT/29-pytest.log 2>&1; echo "rc $?" >> $OUT/29-pytest.log
for tool in memcheck racecheck; do
  timeout 150 compute-sanitizer --tool $tool --error-exitcode 9 python3 -m pytest -q -p no:cacheprovider tests/test_tensor_floor.py -k stores > $OUT/30-$tool.log 2>&1; echo "rc $?" >> $OUT/30-$tool.log
done
timeout 300 python3 tools/floor_report.py > $OUT/31-floor-report.log 2>&1; echo "rc $?" >> $OUT/31-floor-report.log
cat $OUT/28-device.log; tail -n 3 $OUT/29-pytest.log; tail -n 3 $OUT/30-*.log; cat $OUT/31-floor-report.log
