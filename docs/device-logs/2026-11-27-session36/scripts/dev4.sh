# Session 36, device run 4 (H100): probe4.py (the streamed decode's fences, timing variants).
export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv > $OUT/12-device.log 2>&1
timeout 240 python3 docs/device-logs/2026-11-27-session36/scripts/probe4.py > $OUT/13-probe4.log 2>&1; echo "rc $?" >> $OUT/13-probe4.log
cat $OUT/13-probe4.log
