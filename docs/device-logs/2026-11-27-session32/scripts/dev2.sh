# Session 32, device run 2: probe2.py (the rings of grouped case 1 and of the dual 256x3072x4096).
export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv > $OUT/02-device.log 2>&1
timeout 480 python3 docs/device-logs/2026-11-27-session32/scripts/probe2.py > $OUT/03-probe2.log 2>&1; echo "rc $?" >> $OUT/03-probe2.log
tail -32 $OUT/03-probe2.log
