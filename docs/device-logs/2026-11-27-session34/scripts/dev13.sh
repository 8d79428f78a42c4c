# Session 34, device run 13 (H100): probe8.py (SPLIT_COST 1.5, 2.5, 4, 6 on case 2, mixed, k = 8192).
export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv > $OUT/25-device.log 2>&1
timeout 560 python3 docs/device-logs/2026-11-27-session34/scripts/probe8.py > $OUT/26-split-cost.log 2>&1; echo "rc $?" >> $OUT/26-split-cost.log
cat $OUT/26-split-cost.log
