#!/bin/bash
# Session 47 device run 7 (an H100): the warp stall reasons of the grouped cluster kernel, kernel-wide (Nsight Compute's
# PC sampling counters smsp__pcsamp_warps_issue_stalled_*), on eight groups of 40 rows (N = 48) and of 196 rows
# (N = 208), session 44's ncu44.py
cd "$(dirname "$0")/../../../.." || exit 1
export PYTHONPATH=. PYTHONUNBUFFERED=1 NVFP4RT_CACHE_DIR=/tmp/nvfp4rt-cubins
S44=docs/device-logs/2026-11-28-session44/scripts
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > "$OUT/17-smi.log" 2>&1
for prob in 8x40 8x196; do
  timeout 150 ncu --clock-control none -k regex:grouped_gemm_wgmma_cluster --launch-skip 2 --launch-count 1 \
    --metrics regex:smsp__pcsamp_warps_issue_stalled_.* -f -o /tmp/ncu-st-$prob \
    python3 $S44/ncu44.py $prob > /tmp/ncu-st-$prob.log 2>&1
  echo "$prob rc=$?" >> "$OUT/18-ncu-stalls.log"
  ncu -i /tmp/ncu-st-$prob.ncu-rep --page raw --csv 2>&1 | python3 -c "
import csv, sys
rows = list(csv.reader(sys.stdin))
hdr, units, vals = rows[0], rows[1], rows[2]
st = {h.replace('smsp__pcsamp_warps_issue_stalled_', ''): float(v.replace(',', '') or 0)
      for h, v in zip(hdr, vals) if h.startswith('smsp__pcsamp_warps_issue_stalled_') and not h.endswith('_not_issued')}
tot = sum(st.values())
print('$prob', 'samples', tot)
for k, v in sorted(st.items(), key=lambda kv: -kv[1])[:16]:
    print(f'  {k:34s} {v:10.0f} {100 * v / tot:5.1f}%')
" >> "$OUT/18-ncu-stalls.log" 2>&1
done
