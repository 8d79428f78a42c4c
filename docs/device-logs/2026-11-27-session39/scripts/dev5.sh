#!/bin/bash
# Session 39 device run 5: whole-tile rings (2, 8) against (2, 4) with the per-group peer between them (whole.py)
cd "$(dirname "$0")/../../../.." || exit 1
S=docs/device-logs/2026-11-27-session39/scripts
export PYTHONPATH=. PYTHONUNBUFFERED=1
timeout 300 python3 $S/whole.py 10 > "$OUT/11-whole.log" 2>&1
echo rc=$? >> "$OUT/11-whole.log"
