# Session 33, device run 6 (H100): probe6.py (the TMA-store epilogue's waits and stores, timing-only cuts on case 2).
export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv > $OUT/19-device.log 2>&1
timeout 300 python3 docs/device-logs/2026-11-27-session33/scripts/probe6.py > $OUT/20-store-cuts.log 2>&1; echo "rc $?" >> $OUT/20-store-cuts.log
tail -n 6 $OUT/20-store-cuts.log
