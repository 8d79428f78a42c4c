#!/bin/bash
# Session 37 device run 3: what flips the whole call's mode (modes.py)
cd "$(dirname "$0")/../../../.." || exit 1
S=docs/device-logs/2026-11-27-session37/scripts
PYTHONPATH=. timeout 250 python3 $S/modes.py 3 > "$OUT/04-modes.log" 2>&1
echo rc=$? >> "$OUT/04-modes.log"
