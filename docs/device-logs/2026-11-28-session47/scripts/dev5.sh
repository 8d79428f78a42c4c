#!/bin/bash
# Session 47 device run 5 (an H100): deeper wgmma queues in the grouped cluster kernel's unit loops, timing only
# (cuts47.py: w2 / w3 wait for at most 2 / 3 pending groups in the loops of N <= 128, w3all in every loop; p0 the
# template unchanged), on the four problems of ab47.py, three rounds in one process
cd "$(dirname "$0")/../../../.." || exit 1
export PYTHONUNBUFFERED=1 NVFP4RT_CACHE_DIR=/tmp/nvfp4rt-cubins
S=docs/device-logs/2026-11-28-session47/scripts
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > "$OUT/11-smi.log" 2>&1
python3 $S/cuts47.py /tmp/c47 > "$OUT/12-cuts.log" 2>&1
timeout 500 python3 $S/ab47.py . 3 \
  auto+k/tmp/c47/p0.ptx,auto+k/tmp/c47/w2.ptx,auto+k/tmp/c47/w3.ptx,auto+k/tmp/c47/w3all.ptx > "$OUT/13-ab-depth.log" 2>&1
echo rc=$? >> "$OUT/13-ab-depth.log"
