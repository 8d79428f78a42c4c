#!/bin/bash
# Session 46 device run 1: the grouped cluster plan with map slots (each table entry uses its group's maps, offset by
# its first row and column) and the maps by value (PARAM_MAPS), against dcdf92d (.probe/old46: that revision's
# nvfp4rt/, ptx/ and tests/), two rounds of ab46.py in alternating processes; then the grouped cluster GPU tests
cd "$(dirname "$0")/../../../.." || exit 1
export PYTHONUNBUFFERED=1 NVFP4RT_CACHE_DIR=/tmp/nvfp4rt-cubins
S=docs/device-logs/2026-11-28-session46/scripts
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > "$OUT/01-smi.log" 2>&1
for r in 0 1; do
  timeout 100 python3 $S/ab46.py .probe/old46 1 cut,dealt >> "$OUT/02-ab-old.log" 2>&1; echo rc=$? >> "$OUT/02-ab-old.log"
  timeout 130 python3 $S/ab46.py . 1 cut,dealt,cut+buffer,dealt+buffer >> "$OUT/03-ab-new.log" 2>&1; echo rc=$? >> "$OUT/03-ab-new.log"
done
PYTHONPATH=. timeout 280 python3 -m pytest -q -x -rs -p no:cacheprovider tests/test_grouped_gemm_cluster.py -m gpu \
  > "$OUT/04-gpu-tests.log" 2>&1
echo rc=$? >> "$OUT/04-gpu-tests.log"
