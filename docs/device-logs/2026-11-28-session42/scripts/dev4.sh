#!/bin/bash
# Session 42 device run 5: the unit loops unrolled to two and four units per iteration, the drain only before the back
# edge and on the inner exits (.probe/u2.ptx, u4.ptx carried), against the committed drain after every unit (ab42.py)
cd "$(dirname "$0")/../../../.." || exit 1
S=docs/device-logs/2026-11-28-session42/scripts
export PYTHONPATH=. PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv > "$OUT/13-smi.log" 2>&1
timeout 300 python3 $S/ab42.py 3 ud=ptx/grouped_gemm_nvfp4_wgmma_cluster.ptx,u2=.probe/u2.ptx,u4=.probe/u4.ptx > "$OUT/14-ab42.log" 2>&1
echo rc=$? >> "$OUT/14-ab42.log"
