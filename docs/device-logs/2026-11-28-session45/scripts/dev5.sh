#!/bin/bash
# Session 45 device run 5: the tensormap fences up front: .probe/fup45.ptx (the A16 producer fences its run's a16 maps
# before the decode wait, each consumer warpgroup's storing thread its run's c maps before its first segment; no fence
# at an entry switch) and .probe/fupb45.ptx (the B producer too, before its first load); ab45.py two rounds against
# the kernel (dealt) and the fence-free measurement probe; fup45 also on the cut and with sw=0.65
cd "$(dirname "$0")/../../../.." || exit 1
export PYTHONPATH=. PYTHONUNBUFFERED=1 NVFP4RT_CACHE_DIR=/tmp/nvfp4rt-cubins
nvidia-smi --query-gpu=name,driver_version --format=csv > "$OUT/13-smi.log" 2>&1
K=ptx/grouped_gemm_nvfp4_wgmma_cluster.ptx
timeout 300 python3 docs/device-logs/2026-11-28-session45/scripts/ab45.py 2 \
  dealt=$K:sched=dealt,fup=.probe/fup45.ptx:sched=dealt,fupb=.probe/fupb45.ptx:sched=dealt,nofence=.probe/nofence45.ptx:sched=dealt,fupcut=.probe/fup45.ptx:sched=cut,fupsw=.probe/fup45.ptx:sched=dealt:sw=0.65 > "$OUT/14-ab-fup.log" 2>&1
echo rc=$? >> "$OUT/14-ab-fup.log"
