#!/bin/bash
# Session 41 device run 8: the profiler's counters with the fp16-store fix (its GPU test, then session 40's prof40.py),
# and what case 2's call is made of (parts41.py)
cd "$(dirname "$0")/../../../.." || exit 1
S=docs/device-logs/2026-11-27-session41/scripts
export PYTHONPATH=. PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv > "$OUT/18-smi.log" 2>&1
timeout 150 python3 -m pytest -q -x -rs tests/test_profile_cluster_kernel.py > "$OUT/19-gpu-tests-prof.log" 2>&1
echo rc=$? >> "$OUT/19-gpu-tests-prof.log"
timeout 120 python3 docs/device-logs/2026-11-27-session40/scripts/prof40.py > "$OUT/20-prof.log" 2>&1
echo rc=$? >> "$OUT/20-prof.log"
timeout 150 python3 $S/parts41.py > "$OUT/21-parts41.log" 2>&1
echo rc=$? >> "$OUT/21-parts41.log"
