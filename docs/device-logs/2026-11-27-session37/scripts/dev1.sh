#!/bin/bash
# Session 37 device run 1: the m-tile table warmed in L2 (warm.py)
cd "$(dirname "$0")/../../../.." || exit 1
S=docs/device-logs/2026-11-27-session37/scripts
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > "$OUT/00-smi.log" 2>&1
PYTHONPATH=. timeout 500 python3 $S/warm.py > "$OUT/01-warm.log" 2>&1
echo rc=$? >> "$OUT/01-warm.log"
