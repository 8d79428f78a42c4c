#!/bin/bash
# Session 44 device run 6: the half ring (.probe/half44.ptx = the kernel at d5389ca) against it with the next unit's
# prologue rotated in front of the unit drain (.probe/rot44.ptx, rot44.py): ab42s.py, two rounds; the grouped bench at cb7adbcec43e
cd "$(dirname "$0")/../../../.." || exit 1
export PYTHONPATH=. PYTHONUNBUFFERED=1 NVFP4RT_CACHE_DIR=/tmp/nvfp4rt-cubins NVFP4RT_GIT_REVISION=cb7adbcec43e
timeout 150 python3 docs/device-logs/2026-11-28-session43/scripts/ab42s.py 2 \
  half=.probe/half44.ptx,rot=.probe/rot44.ptx > "$OUT/09-ab-rot.log" 2>&1
echo rc=$? >> "$OUT/09-ab-rot.log"
timeout 60 python3 -m nvfp4rt.cli bench grouped_gemm --results-dir $OUT > "$OUT/10-bench-grouped.log" 2>&1
echo rc=$? >> "$OUT/10-bench-grouped.log"
