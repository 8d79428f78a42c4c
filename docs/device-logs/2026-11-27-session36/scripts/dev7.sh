# Session 36, device run 7 (H100): probe5.py (a wider in-front decode: one 1024-thread CTA per SM).
export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv > $OUT/19-device.log 2>&1
timeout 300 python3 docs/device-logs/2026-11-27-session36/scripts/probe5.py > $OUT/20-probe5.log 2>&1; echo "rc $?" >> $OUT/20-probe5.log
cat $OUT/20-probe5.log
