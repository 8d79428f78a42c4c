#!/bin/bash
# Session 40 device run 6 (H200): the grouped bench
cd "$(dirname "$0")/../../../.." || exit 1
export PYTHONPATH=. PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv > "$OUT/16-smi.log" 2>&1
timeout 120 python3 -m nvfp4rt.cli bench grouped_gemm --results-dir $OUT/bench > "$OUT/17-bench-grouped-h200.log" 2>&1
echo rc=$? >> "$OUT/17-bench-grouped-h200.log"
