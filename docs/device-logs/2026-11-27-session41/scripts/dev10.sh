#!/bin/bash
# Session 41 device run 12: the fp16 store's cost, continued (epi41.py: noissue, L2 policies on the TMA stores)
cd "$(dirname "$0")/../../../.." || exit 1
S=docs/device-logs/2026-11-27-session41/scripts
export PYTHONPATH=. PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv > "$OUT/28-smi.log" 2>&1
timeout 200 python3 $S/epi41.py committed noissue evict1st evictlast nostore > "$OUT/29-epi41b.log" 2>&1
echo rc=$? >> "$OUT/29-epi41b.log"
