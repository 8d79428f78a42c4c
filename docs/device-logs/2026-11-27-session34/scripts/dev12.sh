# Session 34, device run 12 (asked for an H200, ran on the same H100): probe5.py at 0a67f30, a repeat of run 6 (the committed schedule against the old one and run 5's cut, seven problems).
export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv > $OUT/23-device.log 2>&1
timeout 560 python3 docs/device-logs/2026-11-27-session34/scripts/probe5.py > $OUT/24-committed-vs-old-repeat.log 2>&1; echo "rc $?" >> $OUT/24-committed-vs-old-repeat.log
cat $OUT/24-committed-vs-old-repeat.log
