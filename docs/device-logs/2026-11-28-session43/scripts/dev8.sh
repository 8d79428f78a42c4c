#!/bin/bash
# Session 43 device run 8: gsched43.py, the grouped cluster schedule under a max(floor, N/256) unit cost
cd "$(dirname "$0")/../../../.." || exit 1
export PYTHONPATH=. PYTHONUNBUFFERED=1 NVFP4RT_CACHE_DIR=/tmp/nvfp4rt-cubins
nvidia-smi --query-gpu=name,driver_version --format=csv > "$OUT/20-smi.log" 2>&1
timeout 400 python3 docs/device-logs/2026-11-28-session43/scripts/gsched43.py 3 > "$OUT/21-gsched43.log" 2>&1
echo rc=$? >> "$OUT/21-gsched43.log"
