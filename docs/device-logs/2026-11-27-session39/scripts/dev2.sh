#!/bin/bash
# Session 39 device run 2: the c map acquired and prefetched during staging, EXIT waiting for the reads only (ab2.py);
# the m-tile GPU suite and memcheck on that code
cd "$(dirname "$0")/../../../.." || exit 1
S=docs/device-logs/2026-11-27-session39/scripts
export PYTHONPATH=. PYTHONUNBUFFERED=1
timeout 200 python3 $S/ab2.py 3 > "$OUT/05-ab2.log" 2>&1
echo rc=$? >> "$OUT/05-ab2.log"
timeout 150 python3 -m pytest -q -x -rs tests/test_grouped_gemm_mtiles.py > "$OUT/06-gpu-tests.log" 2>&1
echo rc=$? >> "$OUT/06-gpu-tests.log"
timeout 100 compute-sanitizer --tool memcheck --error-exitcode 9 python3 $S/san39.py > "$OUT/07-san-memcheck.log" 2>&1
echo rc=$? >> "$OUT/07-san-memcheck.log"
