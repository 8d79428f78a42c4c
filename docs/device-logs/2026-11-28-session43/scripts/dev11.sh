#!/bin/bash
# Session 43 device run 11: gcost43.py, the grouped cluster kernel's per-unit, per-tile and per-call costs
cd "$(dirname "$0")/../../../.." || exit 1
export PYTHONPATH=. PYTHONUNBUFFERED=1 NVFP4RT_CACHE_DIR=/tmp/nvfp4rt-cubins
timeout 240 python3 docs/device-logs/2026-11-28-session43/scripts/gcost43.py > "$OUT/24-gcost43.log" 2>&1
echo rc=$? >> "$OUT/24-gcost43.log"
