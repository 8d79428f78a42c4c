#!/bin/bash
# Session 44 device run 5: at d5389ca (the half ring), ts44.py: each cluster's finish time against the schedule's model
cd "$(dirname "$0")/../../../.." || exit 1
export PYTHONPATH=. PYTHONUNBUFFERED=1 NVFP4RT_CACHE_DIR=/tmp/nvfp4rt-cubins
timeout 200 python3 docs/device-logs/2026-11-28-session44/scripts/ts44.py > "$OUT/08-ts44.log" 2>&1
echo rc=$? >> "$OUT/08-ts44.log"
