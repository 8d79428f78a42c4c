#!/bin/bash
# Session 41 device run 14: the TMA-store epilogue per warp against per warpgroup (ab41g.py; .probe/wst.ptx carried)
cd "$(dirname "$0")/../../../.." || exit 1
S=docs/device-logs/2026-11-27-session41/scripts
export PYTHONPATH=. PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv > "$OUT/35-smi.log" 2>&1
timeout 150 python3 $S/ab41g.py 3 > "$OUT/36-ab41g.log" 2>&1
echo rc=$? >> "$OUT/36-ab41g.log"
