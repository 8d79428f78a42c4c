#!/bin/bash
# Session 42 device run 6: at 8946d97372fc (the unit drain): the cluster, grouped and profiler suites on the GPU, the
# grouped bench, and case 2's consumer profile (session 40's prof40.py)
cd "$(dirname "$0")/../../../.." || exit 1
export PYTHONPATH=. PYTHONUNBUFFERED=1 NVFP4RT_GIT_REVISION=8946d97372fc
nvidia-smi --query-gpu=name,driver_version --format=csv > "$OUT/15-smi.log" 2>&1
timeout 150 python3 -m pytest -q -x -rs tests/test_grouped_gemm_cluster.py tests/test_grouped_gemm.py tests/test_profile_cluster_kernel.py > "$OUT/16-gpu-tests.log" 2>&1
echo rc=$? >> "$OUT/16-gpu-tests.log"
timeout 150 python3 -m nvfp4rt.cli bench grouped_gemm --results-dir $OUT/bench > "$OUT/17-bench-grouped.log" 2>&1
echo rc=$? >> "$OUT/17-bench-grouped.log"
timeout 90 python3 docs/device-logs/2026-11-27-session40/scripts/prof40.py > "$OUT/18-prof.log" 2>&1
echo rc=$? >> "$OUT/18-prof.log"
