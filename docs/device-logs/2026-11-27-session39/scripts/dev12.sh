#!/bin/bash
# Session 39 device run 12: the epilogue's table reads at the segment epilogue's start; the map fence's cost (ab5.py);
# the timeline (tl2.py)
cd "$(dirname "$0")/../../../.." || exit 1
S=docs/device-logs/2026-11-27-session39/scripts
export PYTHONPATH=. PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv > "$OUT/30-smi.log" 2>&1
timeout 300 python3 $S/ab5.py 4 > "$OUT/31-ab5.log" 2>&1
echo rc=$? >> "$OUT/31-ab5.log"
timeout 100 python3 $S/tl2.py 20 4 > "$OUT/32-timeline4.log" 2>&1
echo rc=$? >> "$OUT/32-timeline4.log"
