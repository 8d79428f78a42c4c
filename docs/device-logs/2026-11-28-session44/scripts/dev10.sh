#!/bin/bash
# Session 44 device run 10: at 66d6eaafb70f (the half ring and fine steps): the grouped bench; compute-sanitizer memcheck,
# racecheck and synccheck on the grouped plans (tools/sanitize_kernels.py grouped); the grouped GPU tests
cd "$(dirname "$0")/../../../.." || exit 1
export PYTHONPATH=. PYTHONUNBUFFERED=1 NVFP4RT_CACHE_DIR=/tmp/nvfp4rt-cubins NVFP4RT_GIT_REVISION=66d6eaafb70f
nvidia-smi --query-gpu=name,driver_version --format=csv > "$OUT/18-smi.log" 2>&1
timeout 70 python3 -m nvfp4rt.cli bench grouped_gemm --results-dir $OUT > "$OUT/19-bench-grouped.log" 2>&1
echo rc=$? >> "$OUT/19-bench-grouped.log"
for tool in memcheck racecheck synccheck; do
  timeout 90 compute-sanitizer --tool $tool --error-exitcode 9 python3 tools/sanitize_kernels.py grouped > "$OUT/20-san-$tool.log" 2>&1
  echo rc=$? >> "$OUT/20-san-$tool.log"
done
timeout 150 python3 -m pytest -q -x -rs -p no:cacheprovider tests/test_grouped_gemm.py tests/test_streamk_head_check.py -m gpu > "$OUT/21-gpu-tests.log" 2>&1
echo rc=$? >> "$OUT/21-gpu-tests.log"
