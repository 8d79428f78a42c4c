#!/bin/bash
# Session 38 device run 8: does a launch's parameter block cost device time? (params.py)
cd "$(dirname "$0")/../../../.." || exit 1
S=docs/device-logs/2026-11-27-session38/scripts
PYTHONPATH=. timeout 200 python3 $S/params.py > "$OUT/17-params.log" 2>&1
echo rc=$? >> "$OUT/17-params.log"
