#!/bin/bash
# Session 39 device run 6: the committed code: GPU suites, the three sanitizer tools, the grouped bench
cd "$(dirname "$0")/../../../.." || exit 1
S=docs/device-logs/2026-11-27-session39/scripts
export PYTHONPATH=. PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv > "$OUT/12-smi.log" 2>&1
timeout 300 python3 -m pytest -q -rs tests/test_decode_a16.py tests/test_grouped_gemm.py tests/test_grouped_gemm_mtiles.py \
  tests/test_grouped_gemm_cluster.py tests/test_gemm_wgmma_cluster.py tests/test_dual_gemm_tiles.py > "$OUT/13-gpu-tests.log" 2>&1
echo rc=$? >> "$OUT/13-gpu-tests.log"
for tool in memcheck racecheck synccheck; do
  timeout 100 compute-sanitizer --tool $tool --error-exitcode 9 python3 $S/san39.py > "$OUT/14-san-$tool.log" 2>&1
  echo rc=$? >> "$OUT/14-san-$tool.log"
done
timeout 200 python3 -m nvfp4rt.cli bench grouped_gemm --results-dir $OUT/bench > "$OUT/15-bench-grouped.log" 2>&1
echo rc=$? >> "$OUT/15-bench-grouped.log"
