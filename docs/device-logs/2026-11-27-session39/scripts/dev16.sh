#!/bin/bash
# Session 39 device run 16: with the maps as a parameter for every plan that fits (PARAM_MAPS_AUTO = 32): the m-tile
# suite and the grouped bench
cd "$(dirname "$0")/../../../.." || exit 1
export PYTHONPATH=. PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv > "$OUT/45-smi.log" 2>&1
timeout 70 python3 -m pytest -q -x -rs tests/test_grouped_gemm_mtiles.py > "$OUT/46-gpu-tests.log" 2>&1
echo rc=$? >> "$OUT/46-gpu-tests.log"
timeout 90 python3 -m nvfp4rt.cli bench grouped_gemm --results-dir $OUT/bench > "$OUT/47-bench-grouped.log" 2>&1
echo rc=$? >> "$OUT/47-bench-grouped.log"
