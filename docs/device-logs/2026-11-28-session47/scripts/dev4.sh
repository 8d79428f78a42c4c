#!/bin/bash
# Session 47 device run 4 (an H100): dual47.py again with the A16 copies cut after their first lap ("noa16": timing
# only), to see whether the 128-row dual tiles are held back by their A16 traffic from L2 (run 2 had no noa16 builds)
cd "$(dirname "$0")/../../../.." || exit 1
export PYTHONUNBUFFERED=1 NVFP4RT_CACHE_DIR=/tmp/nvfp4rt-cubins
S=docs/device-logs/2026-11-28-session47/scripts
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > "$OUT/09-smi.log" 2>&1
timeout 400 python3 $S/dual47.py 3 noa16 > "$OUT/10-dual-noa16.log" 2>&1
echo rc=$? >> "$OUT/10-dual-noa16.log"
