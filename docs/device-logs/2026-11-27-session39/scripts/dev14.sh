#!/bin/bash
# Session 39 device run 14: the tensor-map fences' cost, timing only (fences.py)
cd "$(dirname "$0")/../../../.." || exit 1
S=docs/device-logs/2026-11-27-session39/scripts
export PYTHONPATH=. PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv > "$OUT/38-smi.log" 2>&1
timeout 150 python3 $S/fences.py 4 4 3 1 > "$OUT/39-fences.log" 2>&1
echo rc=$? >> "$OUT/39-fences.log"
