# Session 34, device run 3 (H100): probe2.py (whole-tile schedules for the cluster kernel, swept; cases 2 and 1).
export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv > $OUT/04-device.log 2>&1
timeout 500 python3 docs/device-logs/2026-11-27-session34/scripts/probe2.py > $OUT/05-whole-sweep.log 2>&1; echo "rc $?" >> $OUT/05-whole-sweep.log
cat $OUT/05-whole-sweep.log
