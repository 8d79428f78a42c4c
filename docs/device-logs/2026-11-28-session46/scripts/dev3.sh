#!/bin/bash
# Session 46 device run 3 (asked for an H100): at REV (map slots, maps by value, "auto" the default): compute-sanitizer
# memcheck, racecheck and synccheck on the grouped plans (tools/sanitize_kernels.py grouped, with a dealt case whose
# maps are in the device buffer); the host time per call with moved buffers (host46.py); the grouped bench
REV=$1
cd "$(dirname "$0")/../../../.." || exit 1
export PYTHONPATH=. PYTHONUNBUFFERED=1 NVFP4RT_CACHE_DIR=/tmp/nvfp4rt-cubins NVFP4RT_GIT_REVISION=$REV
S=docs/device-logs/2026-11-28-session46/scripts
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > "$OUT/08-smi.log" 2>&1
for tool in memcheck racecheck synccheck; do
  timeout 130 compute-sanitizer --tool $tool --error-exitcode 9 python3 tools/sanitize_kernels.py grouped > "$OUT/09-san-$tool.log" 2>&1
  echo rc=$? >> "$OUT/09-san-$tool.log"
done
timeout 60 python3 $S/host46.py > "$OUT/10-host46.log" 2>&1
echo rc=$? >> "$OUT/10-host46.log"
timeout 150 python3 -m nvfp4rt.cli bench grouped_gemm --results-dir $OUT > "$OUT/11-bench-grouped.log" 2>&1
echo rc=$? >> "$OUT/11-bench-grouped.log"
