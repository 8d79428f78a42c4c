#!/bin/bash
# Session 43 device run 10: gring43.py, the grouped cluster plan's stages / a16 buffers / cluster size re-tried with
# the kernel built as a whole program
cd "$(dirname "$0")/../../../.." || exit 1
export PYTHONPATH=. PYTHONUNBUFFERED=1 NVFP4RT_CACHE_DIR=/tmp/nvfp4rt-cubins
timeout 300 python3 docs/device-logs/2026-11-28-session43/scripts/gring43.py 3 > "$OUT/23-gring43.log" 2>&1
echo rc=$? >> "$OUT/23-gring43.log"
