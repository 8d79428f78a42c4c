#!/bin/bash
# Session 41 device run 13: at 98582dc231d9 (c stores evict_first): the A/B against d0ab9af (ab41f.py; .probe/d0ab.ptx
# carried), the cluster and grouped suites on the GPU, the sanitizer (san41.py), the grouped bench
cd "$(dirname "$0")/../../../.." || exit 1
S=docs/device-logs/2026-11-27-session41/scripts
export PYTHONPATH=. PYTHONUNBUFFERED=1 NVFP4RT_GIT_REVISION=98582dc231d9
nvidia-smi --query-gpu=name,driver_version --format=csv > "$OUT/30-smi.log" 2>&1
timeout 150 python3 $S/ab41f.py 3 > "$OUT/31-ab41f.log" 2>&1
echo rc=$? >> "$OUT/31-ab41f.log"
timeout 200 python3 -m pytest -q -x -rs tests/test_grouped_gemm_cluster.py tests/test_grouped_gemm.py > "$OUT/32-gpu-tests.log" 2>&1
echo rc=$? >> "$OUT/32-gpu-tests.log"
for tool in memcheck racecheck synccheck; do
  timeout 90 compute-sanitizer --tool $tool --error-exitcode 9 python3 $S/san41.py > "$OUT/33-san-$tool.log" 2>&1
  echo rc=$? >> "$OUT/33-san-$tool.log"
done
timeout 150 python3 -m nvfp4rt.cli bench grouped_gemm --results-dir $OUT/bench > "$OUT/34-bench-grouped.log" 2>&1
echo rc=$? >> "$OUT/34-bench-grouped.log"
