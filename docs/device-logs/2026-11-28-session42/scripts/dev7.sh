#!/bin/bash
# Session 42 device run 8: at 40e2a05706d2 (sub-step batch): the A/B against the unit drain alone (.probe/ud.ptx
# carried; ab42.py), the cluster, grouped and profiler suites on the GPU, the sanitizer (san42.py), the grouped bench
cd "$(dirname "$0")/../../../.." || exit 1
S=docs/device-logs/2026-11-28-session42/scripts
export PYTHONPATH=. PYTHONUNBUFFERED=1 NVFP4RT_GIT_REVISION=40e2a05706d2
nvidia-smi --query-gpu=name,driver_version --format=csv > "$OUT/21-smi.log" 2>&1
timeout 120 python3 $S/ab42.py 3 ud=.probe/ud.ptx,bat=ptx/grouped_gemm_nvfp4_wgmma_cluster.ptx > "$OUT/22-ab42.log" 2>&1
echo rc=$? >> "$OUT/22-ab42.log"
timeout 140 python3 -m pytest -q -x -rs tests/test_grouped_gemm_cluster.py tests/test_grouped_gemm.py tests/test_profile_cluster_kernel.py > "$OUT/23-gpu-tests.log" 2>&1
echo rc=$? >> "$OUT/23-gpu-tests.log"
for tool in memcheck racecheck synccheck; do
  timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 python3 $S/san42.py > "$OUT/24-san-$tool.log" 2>&1
  echo rc=$? >> "$OUT/24-san-$tool.log"
done
timeout 150 python3 -m nvfp4rt.cli bench grouped_gemm --results-dir $OUT/bench > "$OUT/25-bench-grouped.log" 2>&1
echo rc=$? >> "$OUT/25-bench-grouped.log"
