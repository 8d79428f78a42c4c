#!/bin/bash
# Session 41 device run 1: the cluster kernel's segment epilogue and token step: the grouped suites on the GPU, the
# A/B of four builds (ab41.py; .probe/*.ptx carried), the sanitizer (san41.py)
cd "$(dirname "$0")/../../../.." || exit 1
S=docs/device-logs/2026-11-27-session41/scripts
export PYTHONPATH=. PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv > "$OUT/01-smi.log" 2>&1
timeout 240 python3 -m pytest -q -x -rs tests/test_grouped_gemm_cluster.py tests/test_grouped_gemm.py \
  > "$OUT/02-gpu-tests.log" 2>&1
echo rc=$? >> "$OUT/02-gpu-tests.log"
timeout 300 python3 $S/ab41.py 3 > "$OUT/03-ab41.log" 2>&1
echo rc=$? >> "$OUT/03-ab41.log"
for tool in memcheck racecheck synccheck; do
  timeout 90 compute-sanitizer --tool $tool --error-exitcode 9 python3 $S/san41.py > "$OUT/04-san-$tool.log" 2>&1
  echo rc=$? >> "$OUT/04-san-$tool.log"
done
