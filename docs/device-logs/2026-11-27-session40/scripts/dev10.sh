#!/bin/bash
# Session 40 device run 10: the schedule's DECODE_COST after the A16 slices, and eight equal groups per m (ab40e.py)
cd "$(dirname "$0")/../../../.." || exit 1
export PYTHONPATH=. PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv > "$OUT/26-smi.log" 2>&1
timeout 400 python3 docs/device-logs/2026-11-27-session40/scripts/ab40e.py .probe/cluster_before.ptx 4 > "$OUT/27-ab40e.log" 2>&1
echo rc=$? >> "$OUT/27-ab40e.log"
