#!/bin/bash
# Session 44 device run 12 (asked for an H100): the grouped bench at 17f97f93c235
cd "$(dirname "$0")/../../../.." || exit 1
export PYTHONPATH=. PYTHONUNBUFFERED=1 NVFP4RT_CACHE_DIR=/tmp/nvfp4rt-cubins NVFP4RT_GIT_REVISION=17f97f93c235
nvidia-smi --query-gpu=name,driver_version --format=csv > "$OUT/28-smi.log" 2>&1
timeout 80 python3 -m nvfp4rt.cli bench grouped_gemm --results-dir $OUT > "$OUT/29-bench-grouped.log" 2>&1
echo rc=$? >> "$OUT/29-bench-grouped.log"
