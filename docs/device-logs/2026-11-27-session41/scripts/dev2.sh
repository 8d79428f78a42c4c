#!/bin/bash
# Session 41 device run 2: the A/B of five builds of the cluster kernel (ab41b.py; .probe/*.ptx carried)
cd "$(dirname "$0")/../../../.." || exit 1
S=docs/device-logs/2026-11-27-session41/scripts
export PYTHONPATH=. PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv > "$OUT/05-smi.log" 2>&1
timeout 330 python3 $S/ab41b.py 3 > "$OUT/06-ab41b.log" 2>&1
echo rc=$? >> "$OUT/06-ab41b.log"
