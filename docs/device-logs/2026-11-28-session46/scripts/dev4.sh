#!/bin/bash
# Session 46 device run 4 (asked for an H100): the dealt schedule's tile costs: the model's (DECODE_COST 0.6), decode
# costs 0.4 and 0.3, and unit costs interpolated from measured unit times ("fit"), on case 2 and ragged rows
# (ab46.py, three rounds in one process)
cd "$(dirname "$0")/../../../.." || exit 1
export PYTHONUNBUFFERED=1 NVFP4RT_CACHE_DIR=/tmp/nvfp4rt-cubins
S=docs/device-logs/2026-11-28-session46/scripts
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > "$OUT/12-smi.log" 2>&1
AB_ONLY="case 2,ragged rows" timeout 240 python3 $S/ab46.py . 3 dealt,dealt+dc0.4,dealt+dc0.3,dealt+fit \
  > "$OUT/13-ab-cost.log" 2>&1
echo rc=$? >> "$OUT/13-ab-cost.log"
