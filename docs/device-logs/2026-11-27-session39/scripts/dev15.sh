#!/bin/bash
# Session 39 device run 15: the maps as a kernel parameter: A/B (parammaps.py), the m-tile suite, memcheck, the bench
cd "$(dirname "$0")/../../../.." || exit 1
S=docs/device-logs/2026-11-27-session39/scripts
export PYTHONPATH=. PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv > "$OUT/40-smi.log" 2>&1
timeout 120 python3 $S/parammaps.py 4 > "$OUT/41-parammaps.log" 2>&1
echo rc=$? >> "$OUT/41-parammaps.log"
timeout 100 python3 -m pytest -q -x -rs tests/test_grouped_gemm_mtiles.py > "$OUT/42-gpu-tests.log" 2>&1
echo rc=$? >> "$OUT/42-gpu-tests.log"
timeout 60 compute-sanitizer --tool memcheck --error-exitcode 9 python3 $S/san39b.py > "$OUT/43-san-memcheck.log" 2>&1
echo rc=$? >> "$OUT/43-san-memcheck.log"
timeout 120 python3 -m nvfp4rt.cli bench grouped_gemm --results-dir $OUT/bench > "$OUT/44-bench-grouped.log" 2>&1
echo rc=$? >> "$OUT/44-bench-grouped.log"
