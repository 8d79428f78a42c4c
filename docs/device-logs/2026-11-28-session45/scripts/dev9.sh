#!/bin/bash
# Session 45 device run 9 (asked for an H100): ab45.py two rounds on case 2, mixed n, ragged rows and case 1's shapes:
# the kernel of d2cf60a with an unused first_hint parameter added (.probe/head45h.ptx: run 8's A/B could not launch
# d2cf60a's seven-parameter kernel with the new plan) on the cut, against 8d7b209's kernel on "auto"
cd "$(dirname "$0")/../../../.." || exit 1
export PYTHONPATH=. PYTHONUNBUFFERED=1 NVFP4RT_CACHE_DIR=/tmp/nvfp4rt-cubins AB_ONLY="case 2,mixed n,ragged rows,case 1 shapes"
nvidia-smi --query-gpu=name,driver_version --format=csv > "$OUT/24-smi.log" 2>&1
timeout 150 python3 docs/device-logs/2026-11-28-session45/scripts/ab45.py 2 \
  head=.probe/head45h.ptx:sched=cut,now=ptx/grouped_gemm_nvfp4_wgmma_cluster.ptx:sched=auto > "$OUT/25-ab-now.log" 2>&1
echo rc=$? >> "$OUT/25-ab-now.log"
