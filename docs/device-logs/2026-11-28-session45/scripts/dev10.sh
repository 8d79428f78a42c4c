#!/bin/bash
# Session 45 device run 10 (asked for an H100): api45.py, the public raw API on case 2 under "auto" (dealt) and the
# cut: why run 8's bench read 81.5 us per API call for case 2 (59.5 at 17f97f9)
cd "$(dirname "$0")/../../../.." || exit 1
export PYTHONPATH=. PYTHONUNBUFFERED=1 NVFP4RT_CACHE_DIR=/tmp/nvfp4rt-cubins
nvidia-smi --query-gpu=name,driver_version --format=csv > "$OUT/26-smi.log" 2>&1
timeout 120 python3 docs/device-logs/2026-11-28-session45/scripts/api45.py > "$OUT/27-api45.log" 2>&1
echo rc=$? >> "$OUT/27-api45.log"
