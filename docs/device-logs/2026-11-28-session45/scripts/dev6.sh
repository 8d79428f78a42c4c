#!/bin/bash
# Session 45 device run 6: the tensormap fences at CTA and at cluster scope instead of gpu (.probe/fcta45.ptx,
# .probe/fcluster45.ptx) on the dealt schedule; ab45.py two rounds against the kernel (dealt, cut) and the fence-free
# measurement probe
cd "$(dirname "$0")/../../../.." || exit 1
export PYTHONPATH=. PYTHONUNBUFFERED=1 NVFP4RT_CACHE_DIR=/tmp/nvfp4rt-cubins
nvidia-smi --query-gpu=name,driver_version --format=csv > "$OUT/15-smi.log" 2>&1
K=ptx/grouped_gemm_nvfp4_wgmma_cluster.ptx
timeout 300 python3 docs/device-logs/2026-11-28-session45/scripts/ab45.py 2 \
  dealt=$K:sched=dealt,cta=.probe/fcta45.ptx:sched=dealt,cluster=.probe/fcluster45.ptx:sched=dealt,nofence=.probe/nofence45.ptx:sched=dealt,cut=$K:sched=cut,ctacut=.probe/fcta45.ptx:sched=cut > "$OUT/16-ab-scope.log" 2>&1
echo rc=$? >> "$OUT/16-ab-scope.log"
