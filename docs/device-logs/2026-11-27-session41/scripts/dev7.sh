#!/bin/bash
# Session 41 device run 9: unit loops in steps of 8 tokens against 16 (ab41e.py; .probe/v8.ptx carried)
cd "$(dirname "$0")/../../../.." || exit 1
S=docs/device-logs/2026-11-27-session41/scripts
export PYTHONPATH=. PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv > "$OUT/22-smi.log" 2>&1
timeout 300 python3 $S/ab41e.py 3 > "$OUT/23-ab41e.log" 2>&1
echo rc=$? >> "$OUT/23-ab41e.log"
