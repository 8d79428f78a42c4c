#!/bin/bash
# Session 47 device run 6 (an H100): Nsight Compute on the third GEMM launch of eight groups of 40 rows (session 44's
# ncu44.py; the N = 48 unit loop), with the warp state statistics; sass47.py lists the loop's SASS with its stall samples
cd "$(dirname "$0")/../../../.." || exit 1
export PYTHONPATH=. PYTHONUNBUFFERED=1 NVFP4RT_CACHE_DIR=/tmp/nvfp4rt-cubins
S=docs/device-logs/2026-11-28-session47/scripts
S44=docs/device-logs/2026-11-28-session44/scripts
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > "$OUT/14-smi.log" 2>&1
timeout 200 ncu --clock-control none -k regex:grouped_gemm_wgmma_cluster --launch-skip 2 --launch-count 1 \
  --section SourceCounters --section WarpStateStats --section ComputeWorkloadAnalysis --section InstructionStats \
  -f -o /tmp/ncu-8x40 python3 $S44/ncu44.py 8x40 > "$OUT/15-ncu-8x40.log" 2>&1
echo rc=$? >> "$OUT/15-ncu-8x40.log"
ncu -i /tmp/ncu-8x40.ncu-rep --page details >> "$OUT/15-ncu-8x40.log" 2>&1
ncu -i /tmp/ncu-8x40.ncu-rep --page source --csv --print-source sass > /tmp/src-8x40.csv 2>> "$OUT/15-ncu-8x40.log"
python3 $S/sass47.py /tmp/src-8x40.csv > "$OUT/16-sass-n48.log" 2>&1
echo rc=$? >> "$OUT/16-sass-n48.log"
