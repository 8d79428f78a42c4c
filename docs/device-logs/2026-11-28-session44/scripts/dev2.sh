#!/bin/bash
# Session 44 device run 2: at ad66d8a, Nsight Compute's source counters (warp stall sampling per SASS instruction) on the
# grouped cluster kernel, 8 x 40 rows (N = 48) and 8 x 196 (N = 208); the SASS of the cached cubin
cd "$(dirname "$0")/../../../.." || exit 1
export PYTHONPATH=. PYTHONUNBUFFERED=1 NVFP4RT_CACHE_DIR=/tmp/nvfp4rt-cubins
S=docs/device-logs/2026-11-28-session44/scripts
for prob in 8x40 8x196; do
  timeout 150 ncu --clock-control none -k regex:grouped_gemm_wgmma_cluster --launch-skip 2 --launch-count 1 \
    --section SourceCounters --section WarpStateStats --section ComputeWorkloadAnalysis -f -o /tmp/ncu-$prob \
    python3 $S/ncu44.py $prob > "$OUT/03-ncu-$prob.log" 2>&1
  echo rc=$? >> "$OUT/03-ncu-$prob.log"
  ncu -i /tmp/ncu-$prob.ncu-rep --page details >> "$OUT/03-ncu-$prob.log" 2>&1
  ncu -i /tmp/ncu-$prob.ncu-rep --page source --csv --print-source sass > /tmp/src-$prob.csv 2>> "$OUT/03-ncu-$prob.log"
  echo "source rc=$? $(wc -c < /tmp/src-$prob.csv)" >> "$OUT/03-ncu-$prob.log"
done
tar czf "$OUT/04-ncu-source.tgz" -C /tmp src-8x40.csv src-8x196.csv
