#!/bin/bash
# Session 41 device run 3: rounded a16 maps A/B (ab41c.py; .probe/base.ptx carried), the grouped suites on the GPU
# with the working tree's kernel, the sanitizer (san41.py)
cd "$(dirname "$0")/../../../.." || exit 1
S=docs/device-logs/2026-11-27-session41/scripts
export PYTHONPATH=. PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv > "$OUT/08-smi.log" 2>&1
timeout 200 python3 $S/ab41c.py 3 > "$OUT/09-ab41c.log" 2>&1
echo rc=$? >> "$OUT/09-ab41c.log"
timeout 240 python3 -m pytest -q -x -rs tests/test_grouped_gemm_cluster.py tests/test_grouped_gemm.py \
  tests/test_decode_a16.py > "$OUT/10-gpu-tests.log" 2>&1
echo rc=$? >> "$OUT/10-gpu-tests.log"
for tool in memcheck racecheck synccheck; do
  timeout 90 compute-sanitizer --tool $tool --error-exitcode 9 python3 $S/san41.py > "$OUT/11-san-$tool.log" 2>&1
  echo rc=$? >> "$OUT/11-san-$tool.log"
done
