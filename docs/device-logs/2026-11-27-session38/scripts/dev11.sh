#!/bin/bash
# Session 38 device run 11: the m-tile GEMM's c stores with an L2 hint (csout.py), cases 4 and 3
cd "$(dirname "$0")/../../../.." || exit 1
S=docs/device-logs/2026-11-27-session38/scripts
PYTHONPATH=. timeout 300 python3 $S/csout.py > "$OUT/20-csout.log" 2>&1
echo rc=$? >> "$OUT/20-csout.log"
