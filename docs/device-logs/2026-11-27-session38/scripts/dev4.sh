#!/bin/bash
# Session 38 device run 4: the decode warming B and sfb in L2 for the GEMM (warmb.py), cases 4 and 3
cd "$(dirname "$0")/../../../.." || exit 1
S=docs/device-logs/2026-11-27-session38/scripts
PYTHONPATH=. timeout 400 python3 $S/warmb.py 4 3 > "$OUT/09-warmb.log" 2>&1
echo rc=$? >> "$OUT/09-warmb.log"
