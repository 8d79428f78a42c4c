# Session 36, device run 1 (H100) at 4cda791: probe1.py (cases 3 and 4, schedule variants on the m-tile plan).
export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv > $OUT/00-device.log 2>&1
timeout 400 python3 docs/device-logs/2026-11-27-session36/scripts/probe1.py > $OUT/01-probe1.log 2>&1; echo "rc $?" >> $OUT/01-probe1.log
cat $OUT/00-device.log $OUT/01-probe1.log
