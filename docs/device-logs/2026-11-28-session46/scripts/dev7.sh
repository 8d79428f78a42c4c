#!/bin/bash
# Session 46 device run 7 (kind nvidia-h200 asked for): at REV, the grouped bench
REV=$1
cd "$(dirname "$0")/../../../.." || exit 1
export PYTHONPATH=. PYTHONUNBUFFERED=1 NVFP4RT_CACHE_DIR=/tmp/nvfp4rt-cubins NVFP4RT_GIT_REVISION=$REV
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > "$OUT/19-smi.log" 2>&1
timeout 200 python3 -m nvfp4rt.cli bench grouped_gemm --results-dir $OUT > "$OUT/20-bench-grouped.log" 2>&1
echo rc=$? >> "$OUT/20-bench-grouped.log"
