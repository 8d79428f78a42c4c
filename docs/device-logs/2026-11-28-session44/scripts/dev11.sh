#!/bin/bash
# Session 44 device run 11: at 17f97f93c235 (no arrive on set 1's full barriers): compute-sanitizer memcheck, racecheck
# and synccheck on the grouped plans; the grouped cluster GPU tests; ab44.py against 230ae6a (.probe/fine44.ptx), two
# rounds (bits equal expected); the grouped bench
cd "$(dirname "$0")/../../../.." || exit 1
export PYTHONPATH=. PYTHONUNBUFFERED=1 NVFP4RT_CACHE_DIR=/tmp/nvfp4rt-cubins NVFP4RT_GIT_REVISION=17f97f93c235
nvidia-smi --query-gpu=name,driver_version --format=csv > "$OUT/22-smi.log" 2>&1
for tool in synccheck memcheck racecheck; do
  timeout 90 compute-sanitizer --tool $tool --error-exitcode 9 python3 tools/sanitize_kernels.py grouped > "$OUT/23-san-$tool.log" 2>&1
  echo rc=$? >> "$OUT/23-san-$tool.log"
done
timeout 120 python3 -m pytest -q -x -rs -p no:cacheprovider tests/test_grouped_gemm_cluster.py -m gpu > "$OUT/24-gpu-tests.log" 2>&1
echo rc=$? >> "$OUT/24-gpu-tests.log"
timeout 150 python3 docs/device-logs/2026-11-28-session44/scripts/ab44.py 2 \
  fine=.probe/fine44.ptx,now=ptx/grouped_gemm_nvfp4_wgmma_cluster.ptx > "$OUT/25-ab-now.log" 2>&1
echo rc=$? >> "$OUT/25-ab-now.log"
timeout 70 python3 -m nvfp4rt.cli bench grouped_gemm --results-dir $OUT > "$OUT/26-bench-grouped.log" 2>&1
echo rc=$? >> "$OUT/26-bench-grouped.log"
