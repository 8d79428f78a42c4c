# Session 35, device run 7 (H100): the segment-start load of (c_lo, c_hi): m-tile GPU tests, compute-sanitizer on
# san35.py, probe5.py (against f39c730's epilogue load).
export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv > $OUT/19-device.log 2>&1
timeout 150 python3 -m pytest -q -m gpu tests/test_grouped_gemm_mtiles.py tests/test_grouped_gemm.py > $OUT/20-tests.log 2>&1; echo "rc $?" >> $OUT/20-tests.log
tail -3 $OUT/20-tests.log
for tool in memcheck racecheck synccheck; do
  echo "== $tool" >> $OUT/21-sanitizer.log
  timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 python3 docs/device-logs/2026-11-27-session35/scripts/san35.py >> $OUT/21-sanitizer.log 2>&1; echo "rc $?" >> $OUT/21-sanitizer.log
done
grep -E "==|rc |SUMMARY|failures" $OUT/21-sanitizer.log
timeout 200 python3 docs/device-logs/2026-11-27-session35/scripts/probe5.py > $OUT/22-probe5.log 2>&1; echo "rc $?" >> $OUT/22-probe5.log
cat $OUT/22-probe5.log
