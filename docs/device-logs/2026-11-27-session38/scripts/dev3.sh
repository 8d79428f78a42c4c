#!/bin/bash
# Session 38 device run 3: the phase per stream or not; medians with the phases spread (stab.py); the bench's GPU
# tests; the grouped bench with the phases spread (the harness's new default)
cd "$(dirname "$0")/../../../.." || exit 1
S=docs/device-logs/2026-11-27-session38/scripts
PYTHONPATH=. timeout 200 python3 $S/stab.py 4 > "$OUT/05-stab-case4.log" 2>&1
echo rc=$? >> "$OUT/05-stab-case4.log"
PYTHONPATH=. timeout 200 python3 $S/stab.py 3 > "$OUT/06-stab-case3.log" 2>&1
echo rc=$? >> "$OUT/06-stab-case3.log"
PYTHONPATH=. timeout 200 python3 -m pytest -q -rs tests/test_bench.py tests/test_lab.py > "$OUT/07-pytest-bench.log" 2>&1
echo rc=$? >> "$OUT/07-pytest-bench.log"
export NVFP4RT_GIT_REVISION=c7cfcfdb433e
PYTHONPATH=. timeout 400 python3 -m nvfp4rt.cli bench grouped_gemm --results-dir $OUT/bench > "$OUT/08-bench-grouped.log" 2>&1
echo rc=$? >> "$OUT/08-bench-grouped.log"
