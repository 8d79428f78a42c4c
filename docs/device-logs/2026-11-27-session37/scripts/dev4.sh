#!/bin/bash
# Session 37 device run 4: which single operation flips the whole call's mode (modes.py ops), case 3; case 4 as run 3
cd "$(dirname "$0")/../../../.." || exit 1
S=docs/device-logs/2026-11-27-session37/scripts
nvidia-smi --query-gpu=name,driver_version --format=csv > "$OUT/05-smi.log" 2>&1
PYTHONPATH=. timeout 250 python3 $S/modes.py 3 ops > "$OUT/06-modes-ops.log" 2>&1
echo rc=$? >> "$OUT/06-modes-ops.log"
PYTHONPATH=. timeout 250 python3 $S/modes.py 4 > "$OUT/07-modes-case4.log" 2>&1
echo rc=$? >> "$OUT/07-modes-case4.log"
