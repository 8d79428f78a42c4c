#!/bin/bash
# Session 46 device run 8: at the session's last kernel and defaults (SWITCH_COST 0.5, DEAL_MARGIN 0.04), the grouped
# cluster GPU tests, then the m-tile plan's (its param_map_slots moved to nvfp4rt.ops.gemm_wgmma_cluster)
cd "$(dirname "$0")/../../../.." || exit 1
export PYTHONPATH=. PYTHONUNBUFFERED=1 NVFP4RT_CACHE_DIR=/tmp/nvfp4rt-cubins
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > "$OUT/21-smi.log" 2>&1
timeout 250 python3 -m pytest -q -rs -p no:cacheprovider tests/test_grouped_gemm_cluster.py -m gpu > "$OUT/22-gpu-tests.log" 2>&1
echo rc=$? >> "$OUT/22-gpu-tests.log"
timeout 90 python3 -m pytest -q -rs -p no:cacheprovider tests/test_grouped_gemm_mtiles.py -m gpu > "$OUT/23-mtile-tests.log" 2>&1
echo rc=$? >> "$OUT/23-mtile-tests.log"
