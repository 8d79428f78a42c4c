# Session 33, device run 10 (H100): probe10.py (the cluster kernel's schedule costs on case 2 after the TMA-store epilogue).
export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv > $OUT/31-device.log 2>&1
timeout 400 python3 docs/device-logs/2026-11-27-session33/scripts/probe10.py > $OUT/32-costs.log 2>&1; echo "rc $?" >> $OUT/32-costs.log
tail -n 15 $OUT/32-costs.log
