#!/bin/bash
# Session 45 device run 1: the dealt schedule (working tree): the grouped cluster GPU tests; ab45.py, two rounds:
# the kernel of d2cf60a (.probe/head45.ptx, entry search from 0) on the cut schedule, this kernel (entry search from
# the run's first entry) on the cut and on the dealt schedule
cd "$(dirname "$0")/../../../.." || exit 1
export PYTHONPATH=. PYTHONUNBUFFERED=1 NVFP4RT_CACHE_DIR=/tmp/nvfp4rt-cubins
nvidia-smi --query-gpu=name,driver_version --format=csv > "$OUT/01-smi.log" 2>&1
timeout 200 python3 docs/device-logs/2026-11-28-session45/scripts/ab45.py 2 \
  head=.probe/head45.ptx:sched=cut,cut=ptx/grouped_gemm_nvfp4_wgmma_cluster.ptx:sched=cut,dealt=ptx/grouped_gemm_nvfp4_wgmma_cluster.ptx:sched=dealt > "$OUT/02-ab-dealt.log" 2>&1
echo rc=$? >> "$OUT/02-ab-dealt.log"
timeout 200 python3 -m pytest -q -x -rs -p no:cacheprovider tests/test_grouped_gemm_cluster.py -m gpu > "$OUT/03-gpu-tests.log" 2>&1
echo rc=$? >> "$OUT/03-gpu-tests.log"
