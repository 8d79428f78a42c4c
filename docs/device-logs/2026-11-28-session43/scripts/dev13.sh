#!/bin/bash
# Session 43 device run 13: launch43.py, the floor of a timed call (an add-one kernel)
cd "$(dirname "$0")/../../../.." || exit 1
export PYTHONPATH=. PYTHONUNBUFFERED=1 NVFP4RT_CACHE_DIR=/tmp/nvfp4rt-cubins
timeout 100 python3 docs/device-logs/2026-11-28-session43/scripts/launch43.py > "$OUT/26-launch43.log" 2>&1
echo rc=$? >> "$OUT/26-launch43.log"
