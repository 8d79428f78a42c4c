#!/bin/bash
# Session 43 device run 12: gparts43.py, a grouped cluster call's decode and GEMM launches apart
cd "$(dirname "$0")/../../../.." || exit 1
export PYTHONPATH=. PYTHONUNBUFFERED=1 NVFP4RT_CACHE_DIR=/tmp/nvfp4rt-cubins
timeout 200 python3 docs/device-logs/2026-11-28-session43/scripts/gparts43.py > "$OUT/25-gparts43.log" 2>&1
echo rc=$? >> "$OUT/25-gparts43.log"
