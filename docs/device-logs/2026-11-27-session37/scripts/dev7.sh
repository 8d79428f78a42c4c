#!/bin/bash
# Session 37 device run 7: the committed code: GPU suites, memcheck, the grouped bench
cd "$(dirname "$0")/../../../.." || exit 1
S=docs/device-logs/2026-11-27-session37/scripts
export PYTHONPATH=. PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv > "$OUT/14-smi.log" 2>&1
timeout 200 python3 -m pytest -q -rs tests/test_decode_a16.py tests/test_grouped_gemm.py \
  tests/test_grouped_gemm_mtiles.py tests/test_grouped_gemm_cluster.py > "$OUT/15-gpu-tests.log" 2>&1
echo rc=$? >> "$OUT/15-gpu-tests.log"
timeout 100 compute-sanitizer --tool memcheck --error-exitcode 9 python3 $S/san37.py > "$OUT/16-san-memcheck.log" 2>&1
echo rc=$? >> "$OUT/16-san-memcheck.log"
timeout 200 python3 -m nvfp4rt.cli bench grouped_gemm --results-dir $OUT/bench > "$OUT/17-bench-grouped.log" 2>&1
echo rc=$? >> "$OUT/17-bench-grouped.log"
