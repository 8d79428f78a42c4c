#!/bin/bash
# Session 38 device run 5: the GEMM and dual GEMM benches with the launch phases spread (the harness's new default)
cd "$(dirname "$0")/../../../.." || exit 1
export NVFP4RT_GIT_REVISION=0d9824417590
PYTHONPATH=. timeout 280 python3 -m nvfp4rt.cli bench gemm --results-dir $OUT/bench > "$OUT/10-bench-gemm.log" 2>&1
echo rc=$? >> "$OUT/10-bench-gemm.log"
PYTHONPATH=. timeout 300 python3 -m nvfp4rt.cli bench dual_gemm --results-dir $OUT/bench > "$OUT/11-bench-dual.log" 2>&1
echo rc=$? >> "$OUT/11-bench-dual.log"
