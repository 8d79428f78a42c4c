# Session 34, device run 10 (H100): probe7.py (the cluster plan's rings and cluster size under the new schedule).
export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv > $OUT/19-device.log 2>&1
timeout 560 python3 docs/device-logs/2026-11-27-session34/scripts/probe7.py > $OUT/20-rings.log 2>&1; echo "rc $?" >> $OUT/20-rings.log
cat $OUT/20-rings.log
