#!/bin/bash
# Session 44 device run 9: at 230ae6a, sched44.py (three other schedule cost settings against the defaults), two rounds
cd "$(dirname "$0")/../../../.." || exit 1
export PYTHONPATH=. PYTHONUNBUFFERED=1 NVFP4RT_CACHE_DIR=/tmp/nvfp4rt-cubins
nvidia-smi --query-gpu=name,driver_version --format=csv > "$OUT/16-smi.log" 2>&1
timeout 240 python3 docs/device-logs/2026-11-28-session44/scripts/sched44.py 2 > "$OUT/17-sched44.log" 2>&1
echo rc=$? >> "$OUT/17-sched44.log"
