# Session 36, device run 2 (H100) at 58acc88: GPU suites of the grouped plans, compute-sanitizer on san36.py,
# probe2.py, and the grouped bench.
export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c PYTHONUNBUFFERED=1 NVFP4RT_GIT_REVISION=58acc88
S=docs/device-logs/2026-11-27-session36/scripts
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv > $OUT/02-device.log 2>&1
timeout 240 python3 -m pytest -q -m gpu tests/test_grouped_gemm_mtiles.py tests/test_grouped_gemm.py tests/test_streamk_head_check.py > $OUT/03-tests.log 2>&1; echo "rc $?" >> $OUT/03-tests.log
tail -4 $OUT/03-tests.log
for t in memcheck racecheck synccheck; do
  echo "== $t" >> $OUT/04-sanitizer.log
  timeout 200 compute-sanitizer --tool $t --error-exitcode 9 python3 $S/san36.py >> $OUT/04-sanitizer.log 2>&1; echo "rc $?" >> $OUT/04-sanitizer.log
done
grep -E "^==|ERROR SUMMARY|RACECHECK SUMMARY|failures|rc " $OUT/04-sanitizer.log
timeout 150 python3 $S/probe2.py > $OUT/05-probe2.log 2>&1; echo "rc $?" >> $OUT/05-probe2.log
cat $OUT/05-probe2.log
mkdir -p $OUT/bench
timeout 170 python3 -m nvfp4rt.cli bench grouped_gemm --results-dir $OUT/bench > $OUT/06-bench-grouped.log 2>&1; echo "rc $?" >> $OUT/06-bench-grouped.log
tail -30 $OUT/06-bench-grouped.log
