#!/bin/bash
# Session 39 device run 9: C_PREFETCH (c lines into L2 before the stores): A/B (ab3.py), timelines (tl.py), the
# m-tile suite and memcheck with it
cd "$(dirname "$0")/../../../.." || exit 1
S=docs/device-logs/2026-11-27-session39/scripts
export PYTHONPATH=. PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv > "$OUT/19-smi.log" 2>&1
timeout 200 python3 $S/ab3.py 3 > "$OUT/20-ab3.log" 2>&1
echo rc=$? >> "$OUT/20-ab3.log"
timeout 200 python3 $S/tl.py 20 4 3 > "$OUT/21-timeline.log" 2>&1
echo rc=$? >> "$OUT/21-timeline.log"
timeout 150 python3 -m pytest -q -x -rs tests/test_grouped_gemm_mtiles.py > "$OUT/22-gpu-tests.log" 2>&1
echo rc=$? >> "$OUT/22-gpu-tests.log"
timeout 100 compute-sanitizer --tool memcheck --error-exitcode 9 python3 $S/san39.py > "$OUT/23-san-memcheck.log" 2>&1
echo rc=$? >> "$OUT/23-san-memcheck.log"
