#!/bin/bash
# Session 37 device run 8: the bench's order of measurement again, at the committed code (order.py), same H100 as run 7
cd "$(dirname "$0")/../../../.." || exit 1
S=docs/device-logs/2026-11-27-session37/scripts
PYTHONPATH=. timeout 250 python3 $S/order.py 3 4 > "$OUT/18-order.log" 2>&1
echo rc=$? >> "$OUT/18-order.log"
PYTHONPATH=. timeout 250 python3 $S/order.py 4 3 > "$OUT/19-order.log" 2>&1
echo rc=$? >> "$OUT/19-order.log"
