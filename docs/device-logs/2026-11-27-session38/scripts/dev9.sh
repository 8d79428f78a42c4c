#!/bin/bash
# Session 38 device run 9: the m-tile GEMM's copy-out, skipped (timing only), on cases 4 and 3 (skipout.py)
cd "$(dirname "$0")/../../../.." || exit 1
S=docs/device-logs/2026-11-27-session38/scripts
PYTHONPATH=. timeout 250 python3 $S/skipout.py > "$OUT/18-skipout.log" 2>&1
echo rc=$? >> "$OUT/18-skipout.log"
