#!/bin/bash
# Session 41 device runs 5-7: a 288-thread build of the cluster kernel and the schedule's cost constants (ab41d.py;
# run 5 wrote 16-ab41d-failed.log: the 288-thread build without .maxnreg did not launch)
cd "$(dirname "$0")/../../../.." || exit 1
S=docs/device-logs/2026-11-27-session41/scripts
export PYTHONPATH=. PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv > "$OUT/15-smi.log" 2>&1
timeout 300 python3 $S/ab41d.py 3 > "$OUT/17-ab41d.log" 2>&1
echo rc=$? >> "$OUT/17-ab41d.log"
