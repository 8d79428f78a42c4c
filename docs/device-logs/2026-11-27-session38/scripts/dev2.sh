#!/bin/bash
# Session 38 device run 2: the mode against the launch phase modulo 4 (phase.py), cases 4 and 3
cd "$(dirname "$0")/../../../.." || exit 1
S=docs/device-logs/2026-11-27-session38/scripts
PYTHONPATH=. timeout 250 python3 $S/phase.py 4 > "$OUT/03-phase-case4.log" 2>&1
echo rc=$? >> "$OUT/03-phase-case4.log"
PYTHONPATH=. timeout 250 python3 $S/phase.py 3 > "$OUT/04-phase-case3.log" 2>&1
echo rc=$? >> "$OUT/04-phase-case3.log"
