#!/bin/bash
# Session 40 device run 15: four-loop (unserialised) builds of the cluster kernel on case 2 (loops40.py)
cd "$(dirname "$0")/../../../.." || exit 1
export PYTHONPATH=. PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv > "$OUT/35-smi.log" 2>&1
timeout 400 python3 docs/device-logs/2026-11-27-session40/scripts/loops40.py 3 > "$OUT/36-loops40.log" 2>&1
echo rc=$? >> "$OUT/36-loops40.log"
