#!/bin/bash
# Session 46 device run 2 (H100): the grouped cluster GPU tests with "auto" the default schedule; then the dealt
# schedule under SWITCH_COST 0 / 0.25 / 0.5 / 1.0 (the default) against the cut, on case 2 and ragged rows (ab46.py,
# three rounds in one process)
cd "$(dirname "$0")/../../../.." || exit 1
export PYTHONUNBUFFERED=1 NVFP4RT_CACHE_DIR=/tmp/nvfp4rt-cubins
S=docs/device-logs/2026-11-28-session46/scripts
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > "$OUT/05-smi.log" 2>&1
PYTHONPATH=. timeout 330 python3 -m pytest -q -rs -p no:cacheprovider tests/test_grouped_gemm_cluster.py -m gpu \
  > "$OUT/06-gpu-tests.log" 2>&1
echo rc=$? >> "$OUT/06-gpu-tests.log"
AB_ONLY="case 2,ragged rows" timeout 200 python3 $S/ab46.py . 3 cut,dealt+sw0,dealt+sw0.25,dealt+sw0.5,dealt \
  > "$OUT/07-ab-sw.log" 2>&1
echo rc=$? >> "$OUT/07-ab-sw.log"
