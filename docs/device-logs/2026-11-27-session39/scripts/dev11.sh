#!/bin/bash
# Session 39 device run 11: the epilogue's table reads off its critical path: A/B with the peer (ab4.py), the timeline
# again (tl2.py), the m-tile suite and memcheck
cd "$(dirname "$0")/../../../.." || exit 1
S=docs/device-logs/2026-11-27-session39/scripts
export PYTHONPATH=. PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv > "$OUT/25-smi.log" 2>&1
timeout 250 python3 $S/ab4.py 4 > "$OUT/26-ab4.log" 2>&1
echo rc=$? >> "$OUT/26-ab4.log"
timeout 100 python3 $S/tl2.py 20 4 3 > "$OUT/27-timeline3.log" 2>&1
echo rc=$? >> "$OUT/27-timeline3.log"
timeout 150 python3 -m pytest -q -x -rs tests/test_grouped_gemm_mtiles.py > "$OUT/28-gpu-tests.log" 2>&1
echo rc=$? >> "$OUT/28-gpu-tests.log"
timeout 100 compute-sanitizer --tool memcheck --error-exitcode 9 python3 $S/san39.py > "$OUT/29-san-memcheck.log" 2>&1
echo rc=$? >> "$OUT/29-san-memcheck.log"
