# Session 31, device run 6: the final tree: the tensor floor's, the bench's and the lab's GPU tests, memcheck and
# racecheck on the floor kernel, and the floor report once more.
export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c PYTHONUNBUFFERED=1 NVFP4RT_GIT_REVISION=b64f417a785a
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv > $OUT/17-device.log 2>&1
timeout 280 python3 -m pytest -q -rs -p no:cacheprovider tests/test_tensor_floor.py tests/test_bench.py tests/test_lab.py > $OUT/18-pytest.log 2>&1; echo "rc $?" >> $OUT/18-pytest.log
for tool in memcheck racecheck; do
  timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 python3 -m pytest -q -p no:cacheprovider tests/test_tensor_floor.py -k "stores or grows" > $OUT/19-$tool.log 2>&1; echo "rc $?" >> $OUT/19-$tool.log
done
timeout 200 python3 tools/floor_report.py > $OUT/20-floor-report.log 2>&1; echo "rc $?" >> $OUT/20-floor-report.log
cat $OUT/17-device.log; tail -n 3 $OUT/18-pytest.log; tail -n 3 $OUT/19-*.log; cat $OUT/20-floor-report.log
timeout 200 python3 docs/device-logs/2026-11-27-session31/scripts/call_parts.py > $OUT/21-call-parts.log 2>&1; echo "rc $?" >> $OUT/21-call-parts.log
cat $OUT/21-call-parts.log
