#!/bin/bash
# Session 42 device run 7: the drain moved after the stage release (.probe/udl.ptx), and the next unit's prologue
# rotated in front of the drain (.probe/rot.ptx, written by rot42.py), against the committed drain (ab42.py)
cd "$(dirname "$0")/../../../.." || exit 1
S=docs/device-logs/2026-11-28-session42/scripts
export PYTHONPATH=. PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv > "$OUT/19-smi.log" 2>&1
timeout 240 python3 $S/ab42.py 3 ud=ptx/grouped_gemm_nvfp4_wgmma_cluster.ptx,udl=.probe/udl.ptx,rot=.probe/rot.ptx > "$OUT/20-ab42.log" 2>&1
echo rc=$? >> "$OUT/20-ab42.log"
