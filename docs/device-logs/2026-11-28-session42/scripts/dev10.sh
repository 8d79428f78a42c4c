#!/bin/bash
# Session 42 device run 11: which JIT path keeps setmaxnreg (jit42b.py)
cd "$(dirname "$0")/../../../.." || exit 1
export PYTHONPATH=. PYTHONUNBUFFERED=1
timeout 170 python3 docs/device-logs/2026-11-28-session42/scripts/jit42b.py > "$OUT/30-jit42b.log" 2>&1
echo rc=$? >> "$OUT/30-jit42b.log"
