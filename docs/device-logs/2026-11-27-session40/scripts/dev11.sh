#!/bin/bash
# Session 40 device run 11: the A16 slices against the kernel before them on seven problems (ab40f.py)
cd "$(dirname "$0")/../../../.." || exit 1
export PYTHONPATH=. PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv > "$OUT/28-smi.log" 2>&1
timeout 400 python3 docs/device-logs/2026-11-27-session40/scripts/ab40f.py .probe/cluster_before.ptx 3 > "$OUT/29-ab40f.log" 2>&1
echo rc=$? >> "$OUT/29-ab40f.log"
