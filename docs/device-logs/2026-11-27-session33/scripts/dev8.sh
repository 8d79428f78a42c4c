# Session 33, device run 8 (H100): probe8.py (TMA-store boxes of 32 rows x 4 against 64 rows x 2, case 2).
export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv > $OUT/26-device.log 2>&1
timeout 300 python3 docs/device-logs/2026-11-27-session33/scripts/probe8.py > $OUT/27-boxes.log 2>&1; echo "rc $?" >> $OUT/27-boxes.log
tail -n 8 $OUT/27-boxes.log
