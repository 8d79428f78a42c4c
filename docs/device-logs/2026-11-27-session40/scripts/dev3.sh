#!/bin/bash
# Session 40 device run 3: the wide decode in the cluster plan: the decode and grouped suites on the GPU, the
# sanitizer (san40b.py), the A/B (ab40b.py)
cd "$(dirname "$0")/../../../.." || exit 1
S=docs/device-logs/2026-11-27-session40/scripts
export PYTHONPATH=. PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv > "$OUT/07-smi.log" 2>&1
timeout 260 python3 -m pytest -q -x -rs tests/test_decode_a16.py tests/test_grouped_gemm_cluster.py \
  tests/test_grouped_gemm_mtiles.py tests/test_grouped_gemm.py > "$OUT/08-gpu-tests.log" 2>&1
echo rc=$? >> "$OUT/08-gpu-tests.log"
for tool in memcheck racecheck synccheck; do
  timeout 80 compute-sanitizer --tool $tool --error-exitcode 9 python3 $S/san40b.py > "$OUT/09-san-$tool.log" 2>&1
  echo rc=$? >> "$OUT/09-san-$tool.log"
done
timeout 200 python3 $S/ab40b.py 4 > "$OUT/10-ab40b.log" 2>&1
echo rc=$? >> "$OUT/10-ab40b.log"
