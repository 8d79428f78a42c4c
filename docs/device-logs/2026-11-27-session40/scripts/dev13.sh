#!/bin/bash
# Session 40 device run 13: host time per call of the grouped API, seven repeats per case (api40.py)
cd "$(dirname "$0")/../../../.." || exit 1
export PYTHONPATH=. PYTHONUNBUFFERED=1
timeout 200 python3 docs/device-logs/2026-11-27-session40/scripts/api40.py > "$OUT/33-api40.log" 2>&1
echo rc=$? >> "$OUT/33-api40.log"
