#!/bin/bash
# Session 40 device run 5 (H200): the wide decode against the item decode again (ab40b.py), on an H200
cd "$(dirname "$0")/../../../.." || exit 1
export PYTHONPATH=. PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv > "$OUT/14-smi.log" 2>&1
timeout 200 python3 docs/device-logs/2026-11-27-session40/scripts/ab40b.py 3 > "$OUT/15-ab40b-h200.log" 2>&1
echo rc=$? >> "$OUT/15-ab40b-h200.log"
