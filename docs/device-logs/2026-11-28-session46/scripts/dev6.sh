#!/bin/bash
# Session 46 device run 6 (asked for an H100): unit loops of two units per lap (the unit drain every second unit;
# scripts/two_units.patch applied to tools/gen_grouped_gemm_cluster_ptx.py, then generate(two_units=...)): for N > 128
# (.probe/u2big46.ptx) and for every N (.probe/u2all46.ptx), against the committed kernel, all on the default schedule
# ("auto"); ab46.py, two rounds.  Not kept: the patch is not in the generator
cd "$(dirname "$0")/../../../.." || exit 1
export PYTHONUNBUFFERED=1 NVFP4RT_CACHE_DIR=/tmp/nvfp4rt-cubins
S=docs/device-logs/2026-11-28-session46/scripts
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > "$OUT/17-smi.log" 2>&1
timeout 420 python3 $S/ab46.py . 2 auto,auto+k.probe/u2big46.ptx,auto+k.probe/u2all46.ptx > "$OUT/18-ab-two-units.log" 2>&1
echo rc=$? >> "$OUT/18-ab-two-units.log"
