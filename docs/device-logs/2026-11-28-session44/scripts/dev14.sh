#!/bin/bash
# Session 44 device run 14: at d1b266f, the tile's contributors (c_lo, c_hi) loaded in the segment's epilogue
# (.probe/late44.ptx, generate(early_ctas=False)) against at the segment's start (committed, .probe/now44.ptx): ab44.py,
# three rounds.  Nsight Compute (run 2) showed ptxas moving c_hi to a uniform register right after its load at SEG_LOOP.
cd "$(dirname "$0")/../../../.." || exit 1
export PYTHONPATH=. PYTHONUNBUFFERED=1 NVFP4RT_CACHE_DIR=/tmp/nvfp4rt-cubins
nvidia-smi --query-gpu=name,driver_version --format=csv > "$OUT/33-smi.log" 2>&1
timeout 200 python3 docs/device-logs/2026-11-28-session44/scripts/ab44.py 3 \
  now=.probe/now44.ptx,late=.probe/late44.ptx > "$OUT/34-ab-late.log" 2>&1
echo rc=$? >> "$OUT/34-ab-late.log"
