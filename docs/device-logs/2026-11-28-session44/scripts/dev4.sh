#!/bin/bash
# Session 44 device run 4: the half ring (working tree): the schedule's DECODE_COST swept (dc44.py, two rounds)
cd "$(dirname "$0")/../../../.." || exit 1
export PYTHONPATH=. PYTHONUNBUFFERED=1 NVFP4RT_CACHE_DIR=/tmp/nvfp4rt-cubins
timeout 280 python3 docs/device-logs/2026-11-28-session44/scripts/dc44.py 2 > "$OUT/07-dc44.log" 2>&1
echo rc=$? >> "$OUT/07-dc44.log"
