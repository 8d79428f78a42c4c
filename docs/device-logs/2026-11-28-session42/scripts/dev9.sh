#!/bin/bash
# Session 42 device run 10: the driver JIT against the device's ptxas on the committed kernel (jit42.py)
cd "$(dirname "$0")/../../../.." || exit 1
export PYTHONPATH=. PYTHONUNBUFFERED=1
timeout 200 python3 docs/device-logs/2026-11-28-session42/scripts/jit42.py > "$OUT/29-jit42.log" 2>&1
echo rc=$? >> "$OUT/29-jit42.log"
