# Session 32, device run 1: the schedule probes of probe1.py (dual 256x3072x4096 stream-K runs; the grouped decode's grid).
export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv > $OUT/00-device.log 2>&1
timeout 420 python3 docs/device-logs/2026-11-27-session32/scripts/probe1.py > $OUT/01-probe1.log 2>&1; echo "rc $?" >> $OUT/01-probe1.log
grep -v "^  dual .*: OK$" $OUT/01-probe1.log | tail -40
