#!/bin/bash
# Session 38 device run 7 (H200): is the launch phase's period four there too? phase.py and stab.py on case 4
cd "$(dirname "$0")/../../../.." || exit 1
S=docs/device-logs/2026-11-27-session38/scripts
nvidia-smi --query-gpu=name,driver_version --format=csv > "$OUT/14-smi.log" 2>&1
PYTHONPATH=. timeout 250 python3 $S/phase.py 4 > "$OUT/15-phase-case4-h200.log" 2>&1
echo rc=$? >> "$OUT/15-phase-case4-h200.log"
PYTHONPATH=. timeout 200 python3 $S/stab.py 4 > "$OUT/16-stab-case4-h200.log" 2>&1
echo rc=$? >> "$OUT/16-stab-case4-h200.log"
