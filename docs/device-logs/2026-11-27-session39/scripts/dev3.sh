#!/bin/bash
# Session 39 device run 3: cases 4 and 3 on other rings and clusters of two (rings.py)
cd "$(dirname "$0")/../../../.." || exit 1
S=docs/device-logs/2026-11-27-session39/scripts
export PYTHONPATH=. PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv > "$OUT/08-smi.log" 2>&1
timeout 200 python3 $S/rings.py 3 > "$OUT/09-rings.log" 2>&1
echo rc=$? >> "$OUT/09-rings.log"
