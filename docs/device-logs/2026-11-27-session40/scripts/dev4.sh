#!/bin/bash
# Session 40 device run 4: the grouped bench at the wide decode's commit; the wide decode on the dual GEMM (ab40c.py)
cd "$(dirname "$0")/../../../.." || exit 1
export PYTHONPATH=. PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv > "$OUT/11-smi.log" 2>&1
timeout 120 python3 -m nvfp4rt.cli bench grouped_gemm --results-dir $OUT/bench > "$OUT/12-bench-grouped.log" 2>&1
echo rc=$? >> "$OUT/12-bench-grouped.log"
timeout 200 python3 docs/device-logs/2026-11-27-session40/scripts/ab40c.py 3 > "$OUT/13-ab40c.log" 2>&1
echo rc=$? >> "$OUT/13-ab40c.log"
