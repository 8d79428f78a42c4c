#!/bin/bash
# Session 44 device run 8: at 230ae6a (fine steps, the host's schedule to match) against the half ring with steps of 16
# and the schedule as before (.probe/half44.ptx, fine=16): ab44.py, three rounds; the grouped cluster GPU tests
cd "$(dirname "$0")/../../../.." || exit 1
export PYTHONPATH=. PYTHONUNBUFFERED=1 NVFP4RT_CACHE_DIR=/tmp/nvfp4rt-cubins
nvidia-smi --query-gpu=name,driver_version --format=csv > "$OUT/13-smi.log" 2>&1
timeout 200 python3 docs/device-logs/2026-11-28-session44/scripts/ab44.py 3 \
  half=.probe/half44.ptx:fine=16,fine=ptx/grouped_gemm_nvfp4_wgmma_cluster.ptx > "$OUT/14-ab-fine.log" 2>&1
echo rc=$? >> "$OUT/14-ab-fine.log"
timeout 120 python3 -m pytest -q -x -rs -p no:cacheprovider tests/test_grouped_gemm_cluster.py -m gpu > "$OUT/15-gpu-tests.log" 2>&1
echo rc=$? >> "$OUT/15-gpu-tests.log"
