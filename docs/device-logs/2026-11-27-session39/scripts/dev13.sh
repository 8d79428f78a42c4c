#!/bin/bash
# Session 39 device run 13, at 07bae13: the A/B against run 6's code (ab6.py), the GPU suites, the three sanitizer
# tools, the grouped bench
cd "$(dirname "$0")/../../../.." || exit 1
S=docs/device-logs/2026-11-27-session39/scripts
export PYTHONPATH=. PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv > "$OUT/33-smi.log" 2>&1
timeout 200 python3 $S/ab6.py 4 > "$OUT/34-ab6.log" 2>&1
echo rc=$? >> "$OUT/34-ab6.log"
timeout 300 python3 -m pytest -q -rs tests/test_decode_a16.py tests/test_grouped_gemm.py tests/test_grouped_gemm_mtiles.py \
  tests/test_grouped_gemm_cluster.py tests/test_gemm_wgmma_cluster.py tests/test_dual_gemm_tiles.py > "$OUT/35-gpu-tests.log" 2>&1
echo rc=$? >> "$OUT/35-gpu-tests.log"
for tool in memcheck racecheck synccheck; do
  timeout 100 compute-sanitizer --tool $tool --error-exitcode 9 python3 $S/san39.py > "$OUT/36-san-$tool.log" 2>&1
  echo rc=$? >> "$OUT/36-san-$tool.log"
done
timeout 200 python3 -m nvfp4rt.cli bench grouped_gemm --results-dir $OUT/bench > "$OUT/37-bench-grouped.log" 2>&1
echo rc=$? >> "$OUT/37-bench-grouped.log"
