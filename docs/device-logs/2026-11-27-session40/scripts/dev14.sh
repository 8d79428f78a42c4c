#!/bin/bash
# Session 40 device run 14: the consumers' time by phase on case 2 and three contrasting problems (prof40.py)
cd "$(dirname "$0")/../../../.." || exit 1
export PYTHONPATH=. PYTHONUNBUFFERED=1
timeout 300 python3 docs/device-logs/2026-11-27-session40/scripts/prof40.py > "$OUT/34-prof40.log" 2>&1
echo rc=$? >> "$OUT/34-prof40.log"
