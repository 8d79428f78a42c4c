#!/bin/bash
# Session 47 device run 8 (an H100): the dual tiles' whole tiles against stream-K runs of aligned_run units on the
# shapes whose whole tiles leave at least a quarter of the SMs idle (rule47.py, three rounds)
cd "$(dirname "$0")/../../../.." || exit 1
export PYTHONUNBUFFERED=1 NVFP4RT_CACHE_DIR=/tmp/nvfp4rt-cubins
S=docs/device-logs/2026-11-28-session47/scripts
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > "$OUT/19-smi.log" 2>&1
timeout 400 python3 $S/rule47.py 3 > "$OUT/20-dual-rule.log" 2>&1
echo rc=$? >> "$OUT/20-dual-rule.log"
