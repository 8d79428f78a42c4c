#!/bin/bash
# Session 42 device run 4: the unit drain on the m-tile plan (ab42m.py); the cluster kernel in steps of 8 with the
# drain against the committed steps of 16 (ab42.py; .probe/ud8.ptx carried)
cd "$(dirname "$0")/../../../.." || exit 1
S=docs/device-logs/2026-11-28-session42/scripts
export PYTHONPATH=. PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv > "$OUT/10-smi.log" 2>&1
timeout 200 python3 $S/ab42m.py 3 > "$OUT/11-ab42m.log" 2>&1
echo rc=$? >> "$OUT/11-ab42m.log"
timeout 150 python3 $S/ab42.py 3 ud=ptx/grouped_gemm_nvfp4_wgmma_cluster.ptx,ud8=.probe/ud8.ptx:step=8 > "$OUT/12-ab42.log" 2>&1
echo rc=$? >> "$OUT/12-ab42.log"
