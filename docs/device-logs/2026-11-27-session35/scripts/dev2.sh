# Session 35, device run 2 (H100): the m-tile plan's row classes: GPU tests, the timing probe, compute-sanitizer.
export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv > $OUT/02-device.log 2>&1
timeout 200 python3 -m pytest -q -x -m gpu tests/test_grouped_gemm_mtiles.py > $OUT/03-tests-mtiles.log 2>&1; echo "rc $?" >> $OUT/03-tests-mtiles.log
tail -5 $OUT/03-tests-mtiles.log
timeout 200 python3 docs/device-logs/2026-11-27-session35/scripts/probe2.py > $OUT/04-row-classes-time.log 2>&1; echo "rc $?" >> $OUT/04-row-classes-time.log
cat $OUT/04-row-classes-time.log
for tool in memcheck racecheck synccheck; do
  timeout 150 compute-sanitizer --tool $tool --error-exitcode 9 python3 docs/device-logs/2026-11-27-session35/scripts/san35.py > $OUT/05-san-$tool.log 2>&1; echo "rc $?" >> $OUT/05-san-$tool.log
  tail -3 $OUT/05-san-$tool.log
done
