#!/bin/bash
# Session 39 device run 10: the epilogue stamp by stamp on cases 4 and 3 (tl2.py)
cd "$(dirname "$0")/../../../.." || exit 1
S=docs/device-logs/2026-11-27-session39/scripts
export PYTHONPATH=. PYTHONUNBUFFERED=1
timeout 200 python3 $S/tl2.py 20 4 3 > "$OUT/24-timeline2.log" 2>&1
echo rc=$? >> "$OUT/24-timeline2.log"
