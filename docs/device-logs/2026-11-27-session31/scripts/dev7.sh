# Session 31, device run 7: the m-tile plan's rings on grouped cases 4 and 3 (exact builds of an existing knob).
export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv > $OUT/22-device.log 2>&1
timeout 400 python3 docs/device-logs/2026-11-27-session31/scripts/rings.py > $OUT/23-rings.log 2>&1; echo "rc $?" >> $OUT/23-rings.log
cat $OUT/22-device.log $OUT/23-rings.log
