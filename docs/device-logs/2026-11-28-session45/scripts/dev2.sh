#!/bin/bash
# Session 45 device run 2: per-cluster finish times on case 2 (ts45.py) under the cut and the dealt schedule, and the
# dealt one with the B producer prefetching its run's maps first (.probe/pf45.ptx: generate(prefetch_maps=True));
# ab45.py, two rounds: the kernel (cut, dealt) against the prefetching probe (dealt, cut)
cd "$(dirname "$0")/../../../.." || exit 1
export PYTHONPATH=. PYTHONUNBUFFERED=1 NVFP4RT_CACHE_DIR=/tmp/nvfp4rt-cubins
nvidia-smi --query-gpu=name,driver_version --format=csv > "$OUT/04-smi.log" 2>&1
K=ptx/grouped_gemm_nvfp4_wgmma_cluster.ptx
timeout 150 python3 docs/device-logs/2026-11-28-session45/scripts/ts45.py \
  cut=$K:cut,dealt=$K:dealt,pf=.probe/pf45.ptx:dealt > "$OUT/05-ts45.log" 2>&1
echo rc=$? >> "$OUT/05-ts45.log"
timeout 200 python3 docs/device-logs/2026-11-28-session45/scripts/ab45.py 2 \
  cut=$K:sched=cut,dealt=$K:sched=dealt,pf=.probe/pf45.ptx:sched=dealt,pfcut=.probe/pf45.ptx:sched=cut > "$OUT/06-ab-pf.log" 2>&1
echo rc=$? >> "$OUT/06-ab-pf.log"
