#!/bin/bash
# Session 41 device run 11: what the cluster kernel's fp16 store costs, by timing-only cuts (epi41.py)
cd "$(dirname "$0")/../../../.." || exit 1
S=docs/device-logs/2026-11-27-session41/scripts
export PYTHONPATH=. PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv > "$OUT/26-smi.log" 2>&1
timeout 200 python3 $S/epi41.py > "$OUT/27-epi41.log" 2>&1
echo rc=$? >> "$OUT/27-epi41.log"
