#!/bin/bash
# Session 45 device run 8 (asked for an H100): at REV (the dealt schedule, SWITCH_COST = 1.0, the entry hint only when
# dealt): the grouped cluster GPU tests; compute-sanitizer memcheck, racecheck and synccheck on the grouped plans
# (tools/sanitize_kernels.py grouped, now with two dealt cases); ab45.py, one round, the kernel of d2cf60a on the cut
# against this one on "auto"; the grouped bench
REV=$1
cd "$(dirname "$0")/../../../.." || exit 1
export PYTHONPATH=. PYTHONUNBUFFERED=1 NVFP4RT_CACHE_DIR=/tmp/nvfp4rt-cubins NVFP4RT_GIT_REVISION=$REV
nvidia-smi --query-gpu=name,driver_version --format=csv > "$OUT/19-smi.log" 2>&1
timeout 150 python3 -m pytest -q -x -rs -p no:cacheprovider tests/test_grouped_gemm_cluster.py -m gpu > "$OUT/20-gpu-tests.log" 2>&1
echo rc=$? >> "$OUT/20-gpu-tests.log"
for tool in memcheck racecheck synccheck; do
  timeout 100 compute-sanitizer --tool $tool --error-exitcode 9 python3 tools/sanitize_kernels.py grouped > "$OUT/21-san-$tool.log" 2>&1
  echo rc=$? >> "$OUT/21-san-$tool.log"
done
AB_ONLY="case 2,mixed n,ragged rows,case 1 shapes" timeout 100 python3 docs/device-logs/2026-11-28-session45/scripts/ab45.py 1 \
  head=.probe/head45.ptx:sched=cut,now=ptx/grouped_gemm_nvfp4_wgmma_cluster.ptx:sched=auto > "$OUT/22-ab-now.log" 2>&1
echo rc=$? >> "$OUT/22-ab-now.log"
timeout 100 python3 -m nvfp4rt.cli bench grouped_gemm --results-dir $OUT > "$OUT/23-bench-grouped.log" 2>&1
echo rc=$? >> "$OUT/23-bench-grouped.log"
