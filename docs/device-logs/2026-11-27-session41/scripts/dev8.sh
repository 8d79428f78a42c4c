#!/bin/bash
# Session 41 device run 10: the session's final tree on the GPU: the m-tile, grouped, cluster, decode and profiler suites
cd "$(dirname "$0")/../../../.." || exit 1
export PYTHONPATH=. PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv > "$OUT/24-smi.log" 2>&1
timeout 420 python3 -m pytest -q -x -rs tests/test_grouped_gemm_mtiles.py tests/test_grouped_gemm.py \
  tests/test_grouped_gemm_cluster.py tests/test_decode_a16.py tests/test_profile_cluster_kernel.py \
  > "$OUT/25-gpu-tests.log" 2>&1
echo rc=$? >> "$OUT/25-gpu-tests.log"
