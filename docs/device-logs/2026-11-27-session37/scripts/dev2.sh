#!/bin/bash
# Session 37 device run 2: the bench's order of measurement (order.py), two fresh processes
cd "$(dirname "$0")/../../../.." || exit 1
S=docs/device-logs/2026-11-27-session37/scripts
PYTHONPATH=. timeout 250 python3 $S/order.py 3 4 > "$OUT/02-order.log" 2>&1
echo rc=$? >> "$OUT/02-order.log"
PYTHONPATH=. timeout 250 python3 $S/order.py 4 3 > "$OUT/03-order.log" 2>&1
echo rc=$? >> "$OUT/03-order.log"
