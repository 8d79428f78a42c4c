#!/bin/bash
# Session 44 device run 13: at 7b59c91, the profiler's GPU tests (its instrumentation now also times the half ring's
# set-1 empty waits) and its report on the competition cases
cd "$(dirname "$0")/../../../.." || exit 1
export PYTHONPATH=. PYTHONUNBUFFERED=1 NVFP4RT_CACHE_DIR=/tmp/nvfp4rt-cubins
nvidia-smi --query-gpu=name,driver_version --format=csv > "$OUT/30-smi.log" 2>&1
timeout 150 python3 -m pytest -q -rs -p no:cacheprovider tests/test_profile_cluster_kernel.py -m gpu > "$OUT/31-profiler-tests.log" 2>&1
echo rc=$? >> "$OUT/31-profiler-tests.log"
timeout 100 python3 tools/profile_cluster_kernel.py grouped_gemm --runs 10 > "$OUT/32-profile-grouped.log" 2>&1
echo rc=$? >> "$OUT/32-profile-grouped.log"
