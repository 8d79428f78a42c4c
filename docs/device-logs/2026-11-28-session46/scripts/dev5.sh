#!/bin/bash
# Session 46 device run 5 (an H200, the kind a plain run gets): at REV, the grouped bench; the profiler's GPU tests
# (tools/profile_cluster_kernel.py, not run on the device in session 45)
REV=$1
cd "$(dirname "$0")/../../../.." || exit 1
export PYTHONPATH=. PYTHONUNBUFFERED=1 NVFP4RT_CACHE_DIR=/tmp/nvfp4rt-cubins NVFP4RT_GIT_REVISION=$REV
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > "$OUT/14-smi.log" 2>&1
timeout 150 python3 -m nvfp4rt.cli bench grouped_gemm --results-dir $OUT > "$OUT/15-bench-grouped.log" 2>&1
echo rc=$? >> "$OUT/15-bench-grouped.log"
timeout 150 python3 -m pytest -q -rs -p no:cacheprovider tests/test_profile_cluster_kernel.py -m gpu > "$OUT/16-profiler-tests.log" 2>&1
echo rc=$? >> "$OUT/16-profiler-tests.log"
