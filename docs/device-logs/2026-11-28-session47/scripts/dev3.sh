#!/bin/bash
# Session 47 device run 3: the SM clock and power while each dual plan runs back to back (clock47.py), sampled by
# nvidia-smi every 20 ms (epoch seconds first, so the samples can be matched to the phases clock47.py prints)
cd "$(dirname "$0")/../../../.." || exit 1
export PYTHONUNBUFFERED=1 NVFP4RT_CACHE_DIR=/tmp/nvfp4rt-cubins
S=docs/device-logs/2026-11-28-session47/scripts
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > "$OUT/06-smi.log" 2>&1
( while true; do echo "$(date +%s.%N) $(nvidia-smi --query-gpu=clocks.sm,power.draw --format=csv,noheader)"; sleep 0.02; done ) \
  > "$OUT/07-clock-samples.log" 2>&1 &
SAMPLER=$!
timeout 120 python3 $S/clock47.py > "$OUT/08-clock-phases.log" 2>&1
echo rc=$? >> "$OUT/08-clock-phases.log"
kill $SAMPLER
python3 - "$OUT/07-clock-samples.log" "$OUT/08-clock-phases.log" >> "$OUT/08-clock-phases.log" <<'PY'
import re, statistics, sys
samples = []
for line in open(sys.argv[1]):
    m = re.match(r"([\d.]+) (\d+) MHz, ([\d.]+) W", line.strip())
    if m:
        samples.append((float(m[1]), int(m[2]), float(m[3])))
for line in open(sys.argv[2]):
    m = re.match(r"(.+?)\s+from ([\d.]+) to ([\d.]+)", line)
    if not m:
        continue
    name, t0, t1 = m[1].strip(), float(m[2]) + 0.3, float(m[3]) - 0.1
    inside = [s for s in samples if t0 <= s[0] <= t1]
    if inside:
        print(f"{name:12s} {len(inside)} samples: SM clock median {statistics.median(s[1] for s in inside)} MHz "
              f"(min {min(s[1] for s in inside)}), power median {statistics.median(s[2] for s in inside):.0f} W")
PY
