# Session 33, device run 1: probe1.py (the grouped cluster kernel's fp16 epilogue on case 2, timing only).
export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv > $OUT/00-device.log 2>&1
timeout 500 python3 docs/device-logs/2026-11-27-session33/scripts/probe1.py > $OUT/01-case2-epilogue.log 2>&1; echo "rc $?" >> $OUT/01-case2-epilogue.log
cat $OUT/00-device.log $OUT/01-case2-epilogue.log | tail -40
