#!/bin/bash
# Session 44 device run 7: the half ring (.probe/half44.ptx, d5389ca) against it with unit loops in steps of 8 tokens
# above N = 128 (.probe/hyb44.ptx, hyb44.py; the host's schedule unchanged): ab42s.py, three rounds
cd "$(dirname "$0")/../../../.." || exit 1
export PYTHONPATH=. PYTHONUNBUFFERED=1 NVFP4RT_CACHE_DIR=/tmp/nvfp4rt-cubins
nvidia-smi --query-gpu=name,driver_version --format=csv > "$OUT/11-smi.log" 2>&1
timeout 200 python3 docs/device-logs/2026-11-28-session43/scripts/ab42s.py 3 \
  half=.probe/half44.ptx,hyb=.probe/hyb44.ptx > "$OUT/12-ab-hyb.log" 2>&1
echo rc=$? >> "$OUT/12-ab-hyb.log"
