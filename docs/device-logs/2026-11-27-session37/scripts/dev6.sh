#!/bin/bash
# Session 37 device run 6: the L2 warm-up at the committed code: GPU suites, compute-sanitizer, A/B in both modes
cd "$(dirname "$0")/../../../.." || exit 1
S=docs/device-logs/2026-11-27-session37/scripts
nvidia-smi --query-gpu=name,driver_version --format=csv > "$OUT/10-smi.log" 2>&1
PYTHONPATH=. timeout 300 python3 -m pytest -q -rs -x tests/test_decode_a16.py tests/test_grouped_gemm.py \
  tests/test_grouped_gemm_mtiles.py tests/test_grouped_gemm_cluster.py > "$OUT/11-gpu-tests.log" 2>&1
echo rc=$? >> "$OUT/11-gpu-tests.log"
for tool in memcheck racecheck synccheck; do
  PYTHONPATH=. timeout 150 compute-sanitizer --tool $tool --error-exitcode 9 python3 $S/san37.py > "$OUT/12-san-$tool.log" 2>&1
  echo rc=$? >> "$OUT/12-san-$tool.log"
done
PYTHONPATH=. timeout 200 python3 $S/warm2.py > "$OUT/13-warm2.log" 2>&1
echo rc=$? >> "$OUT/13-warm2.log"
