#!/bin/bash
# Session 43 device run 6: the corrected op-layer test, then session 42's ab42.py with every build now a whole program
# (the runtime's "auto" compiler): the committed kernel (ud) against steps of 8 tokens (ud8) and unit loops unrolled
# to two units (u2), both measured only under the JIT linker before
cd "$(dirname "$0")/../../../.." || exit 1
export PYTHONPATH=. PYTHONUNBUFFERED=1 NVFP4RT_CACHE_DIR=/tmp/nvfp4rt-cubins
timeout 60 python3 -m pytest -q -rs -p no:cacheprovider tests/test_dual_gemm_cluster.py -k op_layer > "$OUT/17-op-layer-test.log" 2>&1
echo rc=$? >> "$OUT/17-op-layer-test.log"
timeout 300 python3 docs/device-logs/2026-11-28-session42/scripts/ab42.py 3 \
  ud=ptx/grouped_gemm_nvfp4_wgmma_cluster.ptx,ud8=.probe/ud8.ptx:step=8,u2=.probe/u2.ptx > "$OUT/18-ab42.log" 2>&1
echo rc=$? >> "$OUT/18-ab42.log"
