#!/bin/bash
# Session 47 device run 2 (the machine lent: an H200): the dual 256 x 3072 x 4096 with its units spread evenly and the split tiles'
# exchange cut out (dual47.py, timing only for the cut builds), beside the op's plan, the checked stream-K runs, the
# fp16 ceiling and the same-size tensor floor, all in one process
cd "$(dirname "$0")/../../../.." || exit 1
export PYTHONUNBUFFERED=1 NVFP4RT_CACHE_DIR=/tmp/nvfp4rt-cubins
S=docs/device-logs/2026-11-28-session47/scripts
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > "$OUT/04-smi.log" 2>&1
timeout 300 python3 $S/dual47.py 3 > "$OUT/05-dual-even.log" 2>&1
echo rc=$? >> "$OUT/05-dual-even.log"
