# Session 34, device run 16 (H100): probe10.py (case 1: where the time goes in run 15's three builds, the profiler's counters).
export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv > $OUT/31-device.log 2>&1
timeout 560 python3 docs/device-logs/2026-11-27-session34/scripts/probe10.py > $OUT/32-case1-profiles.log 2>&1; echo "rc $?" >> $OUT/32-case1-profiles.log
cat $OUT/32-case1-profiles.log
