# Session 34, device run 17 (H100): probe11.py (case 1: run 15's three builds timed plain and instrumented).
export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv > $OUT/33-device.log 2>&1
timeout 560 python3 docs/device-logs/2026-11-27-session34/scripts/probe11.py > $OUT/34-case1-plain-vs-instrumented.log 2>&1; echo "rc $?" >> $OUT/34-case1-plain-vs-instrumented.log
cat $OUT/34-case1-plain-vs-instrumented.log
