# Session 34, device run 15 (H100): probe9.py (case 1: the m-tile plan, the cluster plan, and a small-loops-only cluster build on groups cut into 128-row pieces).
export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv > $OUT/29-device.log 2>&1
timeout 560 python3 docs/device-logs/2026-11-27-session34/scripts/probe9.py > $OUT/30-case1-g4-virtual.log 2>&1; echo "rc $?" >> $OUT/30-case1-g4-virtual.log
cat $OUT/30-case1-g4-virtual.log
