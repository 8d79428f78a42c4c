#!/bin/bash
# Session 38 device run 7: asked for an H200 (is the period four there too?), got the warm H100 of run 6 (the tool keeps
# a held machine).  phase.py at 3378324, where measure() spreads the phases by default, so each of its columns is the
# average over the four phases; then stab.py on case 4 once more.  (Run as written with log names 15-phase-case4-h200
# and 16-stab-case4-h200; renamed after, since both ran on the H100.)
cd "$(dirname "$0")/../../../.." || exit 1
S=docs/device-logs/2026-11-27-session38/scripts
nvidia-smi --query-gpu=name,driver_version --format=csv > "$OUT/14-smi.log" 2>&1
PYTHONPATH=. timeout 250 python3 $S/phase.py 4 > "$OUT/15-phase-case4-spread.log" 2>&1
echo rc=$? >> "$OUT/15-phase-case4-spread.log"
PYTHONPATH=. timeout 200 python3 $S/stab.py 4 > "$OUT/16-stab-case4-again.log" 2>&1
echo rc=$? >> "$OUT/16-stab-case4-again.log"
