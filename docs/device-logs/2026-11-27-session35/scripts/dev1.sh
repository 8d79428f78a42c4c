# Session 35, device run 1 (H100): probe1.py, how the m-tile plan's unit time scales with the wgmmas' A rows.
export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv > $OUT/00-device.log 2>&1
timeout 500 python3 docs/device-logs/2026-11-27-session35/scripts/probe1.py > $OUT/01-rows-scaling.log 2>&1; echo "rc $?" >> $OUT/01-rows-scaling.log
cat $OUT/00-device.log $OUT/01-rows-scaling.log
