#!/bin/bash
# Session 45 device run 7 (asked for an H100): ab45.py two rounds on case 2, mixed n, ragged rows and case 1's shapes:
# the kernel of d2cf60a (.probe/head45.ptx, entry search from 0) on the cut; this kernel on the cut, the dealt, and the
# dealt schedule charging 0.65 / 1.0 / 1.5 per entry switch (SWITCH_COST)
cd "$(dirname "$0")/../../../.." || exit 1
export PYTHONPATH=. PYTHONUNBUFFERED=1 NVFP4RT_CACHE_DIR=/tmp/nvfp4rt-cubins AB_ONLY="case 2,mixed n,ragged rows,case 1 shapes"
nvidia-smi --query-gpu=name,driver_version --format=csv > "$OUT/17-smi.log" 2>&1
K=ptx/grouped_gemm_nvfp4_wgmma_cluster.ptx
timeout 300 python3 docs/device-logs/2026-11-28-session45/scripts/ab45.py 2 \
  head=.probe/head45.ptx:sched=cut,cut=$K:sched=cut,dealt=$K:sched=dealt,sw65=$K:sched=dealt:sw=0.65,sw100=$K:sched=dealt:sw=1.0,sw150=$K:sched=dealt:sw=1.5 > "$OUT/18-ab-sw.log" 2>&1
echo rc=$? >> "$OUT/18-ab-sw.log"
