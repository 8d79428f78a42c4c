#!/bin/bash
# Session 44 device run 1: at ad66d8a, prof44.py (the consumers' wait shares per token class, whole-program build)
cd "$(dirname "$0")/../../../.." || exit 1
export PYTHONPATH=. PYTHONUNBUFFERED=1 NVFP4RT_CACHE_DIR=/tmp/nvfp4rt-cubins
nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.draw --format=csv > "$OUT/01-smi.log" 2>&1
timeout 200 python3 docs/device-logs/2026-11-28-session44/scripts/prof44.py > "$OUT/02-prof44.log" 2>&1
echo rc=$? >> "$OUT/02-prof44.log"
