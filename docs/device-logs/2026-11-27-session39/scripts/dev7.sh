#!/bin/bash
# Session 39 device run 7: stream-K run cuts for cases 1 and 2 with the TMA-store epilogue (tune.py)
cd "$(dirname "$0")/../../../.." || exit 1
S=docs/device-logs/2026-11-27-session39/scripts
export PYTHONPATH=. PYTHONUNBUFFERED=1
timeout 300 python3 $S/tune.py 4 > "$OUT/16-tune.log" 2>&1
echo rc=$? >> "$OUT/16-tune.log"
