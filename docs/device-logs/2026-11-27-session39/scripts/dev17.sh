#!/bin/bash
# Session 39 device run 17: racecheck and synccheck on the maps-as-parameter plans (san39b.py)
cd "$(dirname "$0")/../../../.." || exit 1
for tool in racecheck synccheck; do
  timeout 70 compute-sanitizer --tool $tool --error-exitcode 9 python3 docs/device-logs/2026-11-27-session39/scripts/san39b.py > "$OUT/48-san-$tool.log" 2>&1
  echo rc=$? >> "$OUT/48-san-$tool.log"
done
