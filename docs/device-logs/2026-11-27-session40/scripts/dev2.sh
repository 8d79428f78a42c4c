#!/bin/bash
# Session 40 device run 2: the A/B again (ab40.py; run 1's stopped at the mixed problem's reference check)
cd "$(dirname "$0")/../../../.." || exit 1
export PYTHONPATH=. PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv > "$OUT/05-smi.log" 2>&1
timeout 300 python3 docs/device-logs/2026-11-27-session40/scripts/ab40.py 4 > "$OUT/06-ab40.log" 2>&1
echo rc=$? >> "$OUT/06-ab40.log"
