#!/bin/bash
# Session 47 device run 1 (asked for an H100): what the TMA epilogue's barriers cost the grouped cluster kernel now.
# Timing-only cuts of the committed template (cuts47.py: p0 unchanged, p1 without the wait for a free box and its
# barrier, p2 also without the barrier after the staging's fence; their results are wrong and not checked), and the
# plan with 2 B ring stages (what 3 c boxes per warpgroup would need), on case 2, ragged rows and mixed n (ab47.py,
# three rounds in one process)
cd "$(dirname "$0")/../../../.." || exit 1
export PYTHONUNBUFFERED=1 NVFP4RT_CACHE_DIR=/tmp/nvfp4rt-cubins
S=docs/device-logs/2026-11-28-session47/scripts
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > "$OUT/01-smi.log" 2>&1
python3 $S/cuts47.py /tmp/c47 > "$OUT/02-cuts.log" 2>&1
AB_ONLY="case 2,ragged rows,mixed n" timeout 420 python3 $S/ab47.py . 3 \
  auto,auto+k/tmp/c47/p0.ptx,auto+k/tmp/c47/p1.ptx,auto+k/tmp/c47/p2.ptx,auto+s2 > "$OUT/03-ab-epi.log" 2>&1
echo rc=$? >> "$OUT/03-ab-epi.log"
