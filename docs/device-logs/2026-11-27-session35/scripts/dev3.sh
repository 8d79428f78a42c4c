# Session 35, device run 3 (the warm H200 of run 2): probe2.py again (run 2's copy stopped at a shape mismatch in its
# own reference check).
export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv > $OUT/06-device.log 2>&1
timeout 300 python3 docs/device-logs/2026-11-27-session35/scripts/probe2.py > $OUT/07-row-classes-time.log 2>&1; echo "rc $?" >> $OUT/07-row-classes-time.log
cat $OUT/07-row-classes-time.log
