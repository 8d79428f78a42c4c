# Session 34, device run 4 (H100): probe3.py (case 2: stream-K, whole and hybrid runs, two group orders).
export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv > $OUT/06-device.log 2>&1
timeout 500 python3 docs/device-logs/2026-11-27-session34/scripts/probe3.py > $OUT/07-case2-schedules.log 2>&1; echo "rc $?" >> $OUT/07-case2-schedules.log
cat $OUT/07-case2-schedules.log
