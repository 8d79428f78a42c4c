#!/bin/bash
# Session 45 device run 3: the B producer also prefetching its run's table entries into L1 (.probe/pfl1.ptx: pf45 plus
# prefetch.global.L1 of each entry): finish times on case 2 (ts45.py, dealt), ab45.py two rounds against the kernel
cd "$(dirname "$0")/../../../.." || exit 1
export PYTHONPATH=. PYTHONUNBUFFERED=1 NVFP4RT_CACHE_DIR=/tmp/nvfp4rt-cubins
nvidia-smi --query-gpu=name,driver_version --format=csv > "$OUT/07-smi.log" 2>&1
K=ptx/grouped_gemm_nvfp4_wgmma_cluster.ptx
timeout 100 python3 docs/device-logs/2026-11-28-session45/scripts/ts45.py \
  dealt=$K:dealt,pfl1=.probe/pfl1.ptx:dealt > "$OUT/08-ts45.log" 2>&1
echo rc=$? >> "$OUT/08-ts45.log"
timeout 200 python3 docs/device-logs/2026-11-28-session45/scripts/ab45.py 2 \
  cut=$K:sched=cut,dealt=$K:sched=dealt,pfl1=.probe/pfl1.ptx:sched=dealt,l1cut=.probe/pfl1.ptx:sched=cut > "$OUT/09-ab-pfl1.log" 2>&1
echo rc=$? >> "$OUT/09-ab-pfl1.log"
