#!/bin/bash
# Session 43 device run 14: at 877b98558ccd (the early lookup): ab42.py, the kernel before it (.probe/head43.ptx, the
# committed kernel at a3c71b9..ab2b18b) against it; the grouped cluster GPU tests; compute-sanitizer memcheck and
# racecheck on the grouped plans; the grouped bench
cd "$(dirname "$0")/../../../.." || exit 1
export PYTHONPATH=. PYTHONUNBUFFERED=1 NVFP4RT_CACHE_DIR=/tmp/nvfp4rt-cubins NVFP4RT_GIT_REVISION=877b98558ccd
timeout 75 python3 docs/device-logs/2026-11-28-session43/scripts/ab42s.py 2 \
  base=.probe/head43.ptx,early=ptx/grouped_gemm_nvfp4_wgmma_cluster.ptx > "$OUT/27-ab-early.log" 2>&1
echo rc=$? >> "$OUT/27-ab-early.log"
timeout 70 python3 -m pytest -q -x -rs -p no:cacheprovider tests/test_grouped_gemm_cluster.py -m gpu > "$OUT/28-gpu-tests.log" 2>&1
echo rc=$? >> "$OUT/28-gpu-tests.log"
for tool in memcheck racecheck; do
  timeout 40 compute-sanitizer --tool $tool --error-exitcode 9 python3 tools/sanitize_kernels.py grouped > "$OUT/29-san-$tool.log" 2>&1
  echo rc=$? >> "$OUT/29-san-$tool.log"
done
timeout 40 python3 -m nvfp4rt.cli bench grouped_gemm --results-dir $OUT > "$OUT/30-bench-grouped.log" 2>&1
echo rc=$? >> "$OUT/30-bench-grouped.log"
