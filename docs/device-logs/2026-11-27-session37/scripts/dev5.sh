#!/bin/bash
# Session 37 device run 5: the table warm-up again, each whole call in both modes (warm.py 4 3)
cd "$(dirname "$0")/../../../.." || exit 1
S=docs/device-logs/2026-11-27-session37/scripts
nvidia-smi --query-gpu=name,driver_version --format=csv > "$OUT/08-smi.log" 2>&1
PYTHONPATH=. timeout 500 python3 $S/warm.py 4 3 > "$OUT/09-warm-modes.log" 2>&1
echo rc=$? >> "$OUT/09-warm-modes.log"
