#!/bin/bash
# Session 40 device run 1: the cluster kernel's maps as a parameter: its GPU suite, the sanitizer (san40.py), the A/B
# (ab40.py)
cd "$(dirname "$0")/../../../.." || exit 1
S=docs/device-logs/2026-11-27-session40/scripts
export PYTHONPATH=. PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv > "$OUT/01-smi.log" 2>&1
timeout 200 python3 $S/ab40.py 4 > "$OUT/02-ab40.log" 2>&1
echo rc=$? >> "$OUT/02-ab40.log"
timeout 200 python3 -m pytest -q -x -rs tests/test_grouped_gemm_cluster.py > "$OUT/03-gpu-tests.log" 2>&1
echo rc=$? >> "$OUT/03-gpu-tests.log"
for tool in memcheck racecheck synccheck; do
  timeout 80 compute-sanitizer --tool $tool --error-exitcode 9 python3 $S/san40.py > "$OUT/04-san-$tool.log" 2>&1
  echo rc=$? >> "$OUT/04-san-$tool.log"
done
