#!/bin/bash
# Session 41 device run 15: at 7c41886d5a6f (one barrier per quarter): the A/B against two (ab41h.py; .probe/twobar.ptx
# carried), the cluster and grouped suites on the GPU, the sanitizer (san41.py), the grouped bench
cd "$(dirname "$0")/../../../.." || exit 1
S=docs/device-logs/2026-11-27-session41/scripts
export PYTHONPATH=. PYTHONUNBUFFERED=1 NVFP4RT_GIT_REVISION=7c41886d5a6f
nvidia-smi --query-gpu=name,driver_version --format=csv > "$OUT/37-smi.log" 2>&1
timeout 150 python3 $S/ab41h.py 3 > "$OUT/38-ab41h.log" 2>&1
echo rc=$? >> "$OUT/38-ab41h.log"
timeout 200 python3 -m pytest -q -x -rs tests/test_grouped_gemm_cluster.py tests/test_grouped_gemm.py > "$OUT/39-gpu-tests.log" 2>&1
echo rc=$? >> "$OUT/39-gpu-tests.log"
for tool in memcheck racecheck synccheck; do
  timeout 90 compute-sanitizer --tool $tool --error-exitcode 9 python3 $S/san41.py > "$OUT/40-san-$tool.log" 2>&1
  echo rc=$? >> "$OUT/40-san-$tool.log"
done
timeout 150 python3 -m nvfp4rt.cli bench grouped_gemm --results-dir $OUT/bench > "$OUT/41-bench-grouped.log" 2>&1
echo rc=$? >> "$OUT/41-bench-grouped.log"
