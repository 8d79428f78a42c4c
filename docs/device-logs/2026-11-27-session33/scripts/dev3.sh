# Session 33, device run 3 (H100): probe3.py (the old epilogue, the TMA stores, and three timing-only cuts, same machine).
export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv > $OUT/09-device.log 2>&1
timeout 400 python3 docs/device-logs/2026-11-27-session33/scripts/probe3.py > $OUT/10-epilogue-cuts.log 2>&1; echo "rc $?" >> $OUT/10-epilogue-cuts.log
tail -n 12 $OUT/10-epilogue-cuts.log
