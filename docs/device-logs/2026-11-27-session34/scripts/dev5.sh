# Session 34, device run 5 (H100): probe4.py (the candidate schedule against the default on seven problems).
export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv > $OUT/08-device.log 2>&1
timeout 560 python3 docs/device-logs/2026-11-27-session34/scripts/probe4.py > $OUT/09-candidate.log 2>&1; echo "rc $?" >> $OUT/09-candidate.log
cat $OUT/09-candidate.log
