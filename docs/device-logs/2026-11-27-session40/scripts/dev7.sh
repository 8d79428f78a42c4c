#!/bin/bash
# Session 40 device run 7: the cluster kernel's unit cost by token count (units40.py)
cd "$(dirname "$0")/../../../.." || exit 1
export PYTHONPATH=. PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv > "$OUT/18-smi.log" 2>&1
timeout 300 python3 docs/device-logs/2026-11-27-session40/scripts/units40.py 3 > "$OUT/19-units40.log" 2>&1
echo rc=$? >> "$OUT/19-units40.log"
