# Session 34, device run 2 (H100): probe1.py (grouped case 2 on the cluster kernel, whole-tile runs vs stream-K).
export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv > $OUT/02-device.log 2>&1
timeout 400 python3 docs/device-logs/2026-11-27-session34/scripts/probe1.py > $OUT/03-whole-tiles.log 2>&1; echo "rc $?" >> $OUT/03-whole-tiles.log
cat $OUT/03-whole-tiles.log
