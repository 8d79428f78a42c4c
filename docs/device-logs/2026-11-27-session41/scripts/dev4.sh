#!/bin/bash
# Session 41 device run 4: the grouped bench at d0ab9af33b40 (the session's kernel), then where the consumers' time goes now
# (session 40's prof40.py on the working tree's kernel)
cd "$(dirname "$0")/../../../.." || exit 1
export PYTHONPATH=. PYTHONUNBUFFERED=1 NVFP4RT_GIT_REVISION=d0ab9af33b40
nvidia-smi --query-gpu=name,driver_version --format=csv > "$OUT/12-smi.log" 2>&1
timeout 150 python3 -m nvfp4rt.cli bench grouped_gemm --results-dir $OUT/bench > "$OUT/13-bench-grouped.log" 2>&1
echo rc=$? >> "$OUT/13-bench-grouped.log"
timeout 120 python3 docs/device-logs/2026-11-27-session40/scripts/prof40.py > "$OUT/14-prof.log" 2>&1
echo rc=$? >> "$OUT/14-prof.log"
