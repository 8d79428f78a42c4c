# Session 36, device run 3 (H100): the streamed A decode: its GPU tests and the grouped suites, compute-sanitizer on
# san36b.py, probe3.py (streamed against in front, cases 3 and 4), and the grouped bench.
export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c PYTHONUNBUFFERED=1 NVFP4RT_GIT_REVISION=$1
S=docs/device-logs/2026-11-27-session36/scripts
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv > $OUT/07-device.log 2>&1
timeout 300 python3 -m pytest -q -x -m gpu tests/test_stream_decode.py tests/test_grouped_gemm_mtiles.py tests/test_decode_a16.py tests/test_grouped_gemm.py > $OUT/08-tests.log 2>&1; echo "rc $?" >> $OUT/08-tests.log
tail -15 $OUT/08-tests.log
for t in memcheck racecheck synccheck; do
  echo "== $t" >> $OUT/09-sanitizer.log
  timeout 150 compute-sanitizer --tool $t --error-exitcode 9 python3 $S/san36b.py >> $OUT/09-sanitizer.log 2>&1; echo "rc $?" >> $OUT/09-sanitizer.log
done
grep -E "^==|ERROR SUMMARY|RACECHECK SUMMARY|failures|rc |FAIL" $OUT/09-sanitizer.log
timeout 150 python3 $S/probe3.py > $OUT/10-probe3.log 2>&1; echo "rc $?" >> $OUT/10-probe3.log
cat $OUT/10-probe3.log
mkdir -p $OUT/bench
timeout 170 python3 -m nvfp4rt.cli bench grouped_gemm --results-dir $OUT/bench > $OUT/11-bench-grouped.log 2>&1; echo "rc $?" >> $OUT/11-bench-grouped.log
tail -8 $OUT/11-bench-grouped.log
