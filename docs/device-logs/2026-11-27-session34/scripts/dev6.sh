# Session 34, device run 6 (H100): probe5.py (the committed schedule against the old one and run 5's cut, seven problems).
export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv > $OUT/10-device.log 2>&1
timeout 560 python3 docs/device-logs/2026-11-27-session34/scripts/probe5.py > $OUT/11-committed-vs-old.log 2>&1; echo "rc $?" >> $OUT/11-committed-vs-old.log
cat $OUT/11-committed-vs-old.log
