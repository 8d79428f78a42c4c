#!/bin/bash
# Session 39 device run 8: a timeline of the m-tile GEMM on cases 4 and 3 (tl.py)
cd "$(dirname "$0")/../../../.." || exit 1
S=docs/device-logs/2026-11-27-session39/scripts
export PYTHONPATH=. PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv > "$OUT/17-smi.log" 2>&1
timeout 200 python3 $S/tl.py 30 4 3 > "$OUT/18-timeline.log" 2>&1
echo rc=$? >> "$OUT/18-timeline.log"
