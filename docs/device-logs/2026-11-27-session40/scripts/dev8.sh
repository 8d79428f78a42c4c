#!/bin/bash
# Session 40 device run 8: the unit loops' order and the N = 64 dispatch (units41.py); the SASS of the committed
# build was read in run 7's machine (cuobjdump -sass of the locally assembled cubin: eight identical loops)
cd "$(dirname "$0")/../../../.." || exit 1
export PYTHONPATH=. PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv > "$OUT/20-smi.log" 2>&1
timeout 400 python3 docs/device-logs/2026-11-27-session40/scripts/units41.py 3 > "$OUT/21-units41.log" 2>&1
echo rc=$? >> "$OUT/21-units41.log"
