# Session 31, device run 11: the floor kernel with the first read ahead of the stream: GPU tests, memcheck and
# racecheck, the stream check again, and the floor report.
export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c PYTHONUNBUFFERED=1 NVFP4RT_GIT_REVISION=e2f6beae9773
timeout 200 python3 -m pytest -q -rs -p no:cacheprovider tests/test_tensor_floor.py > $OUT/33-pytest.log 2>&1; echo "rc $?" >> $OUT/33-pytest.log
for tool in memcheck racecheck; do
  timeout 150 compute-sanitizer --tool $tool --error-exitcode 9 python3 -m pytest -q -p no:cacheprovider tests/test_tensor_floor.py -k stores > $OUT/34-$tool.log 2>&1; echo "rc $?" >> $OUT/34-$tool.log
done
timeout 200 python3 docs/device-logs/2026-11-27-session31/scripts/stream_check.py > $OUT/35-stream-check.log 2>&1; echo "rc $?" >> $OUT/35-stream-check.log
timeout 300 python3 tools/floor_report.py > $OUT/36-floor-report.log 2>&1; echo "rc $?" >> $OUT/36-floor-report.log
tail -n 2 $OUT/33-pytest.log; tail -n 3 $OUT/34-*.log; cat $OUT/35-stream-check.log $OUT/36-floor-report.log
