#!/bin/bash
# Session 39 device run 1: the TMA-store epilogue of the m-tile GEMM: GPU suites, the sanitizer, the A/B (ab.py)
cd "$(dirname "$0")/../../../.." || exit 1
S=docs/device-logs/2026-11-27-session39/scripts
export PYTHONPATH=. PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv > "$OUT/01-smi.log" 2>&1
timeout 240 python3 -m pytest -q -x -rs tests/test_grouped_gemm_mtiles.py tests/test_gemm_wgmma_cluster.py \
  tests/test_dual_gemm_tiles.py > "$OUT/02-gpu-tests.log" 2>&1
echo rc=$? >> "$OUT/02-gpu-tests.log"
for tool in memcheck racecheck synccheck; do
  timeout 100 compute-sanitizer --tool $tool --error-exitcode 9 python3 $S/san39.py > "$OUT/03-san-$tool.log" 2>&1
  echo rc=$? >> "$OUT/03-san-$tool.log"
done
timeout 150 python3 $S/ab.py 3 > "$OUT/04-ab.log" 2>&1
echo rc=$? >> "$OUT/04-ab.log"
