#!/bin/bash
# Session 40 device run 12: at the session's final kernels: the decode and grouped suites on the GPU, the grouped bench
cd "$(dirname "$0")/../../../.." || exit 1
export PYTHONPATH=. PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv > "$OUT/30-smi.log" 2>&1
timeout 300 python3 -m pytest -q -x -rs tests/test_decode_a16.py tests/test_grouped_gemm_cluster.py \
  tests/test_grouped_gemm_mtiles.py tests/test_grouped_gemm.py > "$OUT/31-gpu-tests.log" 2>&1
echo rc=$? >> "$OUT/31-gpu-tests.log"
timeout 120 python3 -m nvfp4rt.cli bench grouped_gemm --results-dir $OUT/bench > "$OUT/32-bench-grouped.log" 2>&1
echo rc=$? >> "$OUT/32-bench-grouped.log"
