#!/bin/bash
# Session 38 device run 1: what flips the whole call's mode, and where the GEMM's CTAs land (modeprobe.py)
cd "$(dirname "$0")/../../../.." || exit 1
S=docs/device-logs/2026-11-27-session38/scripts
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw --format=csv > "$OUT/00-smi.log" 2>&1
PYTHONPATH=. timeout 200 python3 $S/modeprobe.py 4 > "$OUT/01-modeprobe-case4.log" 2>&1
echo rc=$? >> "$OUT/01-modeprobe-case4.log"
PYTHONPATH=. timeout 200 python3 $S/modeprobe.py 3 > "$OUT/02-modeprobe-case3.log" 2>&1
echo rc=$? >> "$OUT/02-modeprobe-case3.log"
