#!/bin/bash
# Session 39 device run 4: the rings on all four cases (rings2.py)
cd "$(dirname "$0")/../../../.." || exit 1
S=docs/device-logs/2026-11-27-session39/scripts
export PYTHONPATH=. PYTHONUNBUFFERED=1
timeout 300 python3 $S/rings2.py 4 > "$OUT/10-rings2.log" 2>&1
echo rc=$? >> "$OUT/10-rings2.log"
