#!/bin/bash
# Session 38 device run 10: the m-tile GEMM's copy-out by per-row bulk copies (bulkout.py), cases 4, 3, 1
cd "$(dirname "$0")/../../../.." || exit 1
S=docs/device-logs/2026-11-27-session38/scripts
PYTHONPATH=. timeout 400 python3 $S/bulkout.py > "$OUT/19-bulkout.log" 2>&1
echo rc=$? >> "$OUT/19-bulkout.log"
