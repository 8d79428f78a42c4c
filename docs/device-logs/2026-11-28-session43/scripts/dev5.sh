#!/bin/bash
# Session 43 device run 5: at 3825a8df1ccb, the three test files run 4's whole-suite run did not reach before its
# timeout, and compute-sanitizer (memcheck, racecheck, synccheck) on tools/sanitize_kernels.py (every plan class)
cd "$(dirname "$0")/../../../.." || exit 1
export PYTHONPATH=. PYTHONUNBUFFERED=1 NVFP4RT_CACHE_DIR=/tmp/nvfp4rt-cubins
timeout 150 python3 -m pytest -q -rs -p no:cacheprovider tests/test_streamk_head_check.py tests/test_tensor_floor.py \
  tests/test_tma.py > "$OUT/15-pytest-rest.log" 2>&1
echo rc=$? >> "$OUT/15-pytest-rest.log"
for tool in memcheck racecheck synccheck; do
  timeout 130 compute-sanitizer --tool $tool --error-exitcode 9 python3 tools/sanitize_kernels.py > "$OUT/16-san-$tool.log" 2>&1
  echo rc=$? >> "$OUT/16-san-$tool.log"
done
