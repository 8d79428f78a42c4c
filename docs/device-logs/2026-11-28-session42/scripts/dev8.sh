#!/bin/bash
# Session 42 device run 9: `nvfp4rt cache ls/show/sass` on the driver-JIT'd grouped cluster kernel (the committed
# one), and a summary of its SASS (sass42.py)
cd "$(dirname "$0")/../../../.." || exit 1
S=docs/device-logs/2026-11-28-session42/scripts
export PYTHONPATH=. PYTHONUNBUFFERED=1 NVFP4RT_CACHE_DIR=/tmp/c42b
python3 -c "
from nvfp4rt.ops import grouped_gemm_cluster as GC
GC.GroupedGemmClusterPlan([(m, 7168, 2048) for m in (40, 76, 168, 72, 164, 148, 196, 160)])
print('plan built')" > "$OUT/26-cache.log" 2>&1
python3 -m nvfp4rt.cli cache ls >> "$OUT/26-cache.log" 2>&1
for k in $(ls /tmp/c42b | grep '\.cubin$' | cut -c1-12); do
  python3 -m nvfp4rt.cli cache show $k >> "$OUT/26-cache.log" 2>&1
  if python3 -m nvfp4rt.cli cache show $k 2>/dev/null | grep -q nvfp4_grouped_gemm_wgmma_cluster; then
    python3 -m nvfp4rt.cli cache sass $k -o /tmp/grouped.sass >> "$OUT/26-cache.log" 2>&1
    python3 $S/sass42.py /tmp/grouped.sass > "$OUT/27-sass-summary.log" 2>&1
    gzip -c /tmp/grouped.sass > "$OUT/28-grouped-sass.txt.gz"
  fi
done
echo rc=$? >> "$OUT/26-cache.log"
