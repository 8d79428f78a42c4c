#!/bin/bash
# Session 45 device run 4: what an entry switch costs: the kernel without its four tensormap fences
# (.probe/nofence45.ptx, a measurement only) on the dealt schedule, finish times (ts45.py) and ab45.py two rounds
# against the kernel on the cut, the dealt, and the dealt schedule charging 0.65 per entry switch (sw=0.65)
cd "$(dirname "$0")/../../../.." || exit 1
export PYTHONPATH=. PYTHONUNBUFFERED=1 NVFP4RT_CACHE_DIR=/tmp/nvfp4rt-cubins
nvidia-smi --query-gpu=name,driver_version --format=csv > "$OUT/10-smi.log" 2>&1
K=ptx/grouped_gemm_nvfp4_wgmma_cluster.ptx
timeout 100 python3 docs/device-logs/2026-11-28-session45/scripts/ts45.py \
  dealt=$K:dealt,nofence=.probe/nofence45.ptx:dealt > "$OUT/11-ts45.log" 2>&1
echo rc=$? >> "$OUT/11-ts45.log"
timeout 220 python3 docs/device-logs/2026-11-28-session45/scripts/ab45.py 2 \
  cut=$K:sched=cut,dealt=$K:sched=dealt,sw65=$K:sched=dealt:sw=0.65,nofence=.probe/nofence45.ptx:sched=dealt > "$OUT/12-ab-switch.log" 2>&1
echo rc=$? >> "$OUT/12-ab-switch.log"
