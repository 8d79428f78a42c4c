#!/bin/bash
# Session 44 device run 3: the half ring (working tree) against the kernel at ad66d8a (.probe/head44.ptx): ab42s.py, two
# rounds; then the grouped cluster GPU tests on the half ring
cd "$(dirname "$0")/../../../.." || exit 1
export PYTHONPATH=. PYTHONUNBUFFERED=1 NVFP4RT_CACHE_DIR=/tmp/nvfp4rt-cubins
timeout 150 python3 docs/device-logs/2026-11-28-session43/scripts/ab42s.py 2 \
  base=.probe/head44.ptx,half=.probe/half44.ptx > "$OUT/05-ab-half.log" 2>&1
echo rc=$? >> "$OUT/05-ab-half.log"
timeout 120 python3 -m pytest -q -x -rs -p no:cacheprovider tests/test_grouped_gemm_cluster.py -m gpu > "$OUT/06-gpu-tests.log" 2>&1
echo rc=$? >> "$OUT/06-gpu-tests.log"
