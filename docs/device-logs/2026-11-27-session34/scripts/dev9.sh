# Session 34, device run 9 (H100): probe6.py (launch orders: the m-tile plan's tiles on cases 1, 3, 4; the cluster plan's groups on case 2).
export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv > $OUT/17-device.log 2>&1
timeout 560 python3 docs/device-logs/2026-11-27-session34/scripts/probe6.py > $OUT/18-orders.log 2>&1; echo "rc $?" >> $OUT/18-orders.log
cat $OUT/18-orders.log
