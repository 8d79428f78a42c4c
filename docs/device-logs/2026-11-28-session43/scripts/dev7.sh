#!/bin/bash
# Session 43 device run 7 (its command, as run): the grouped bench twice more at 3825a8df1ccb, after run 4's bench
# gave case 2 an API figure of 116 us/call (JSON not kept: these reruns check that figure)
cd "$(dirname "$0")/../../../.." || exit 1
export PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/nvfp4rt-cubins NVFP4RT_GIT_REVISION=3825a8df1ccb
for i in 1 2; do timeout 80 python3 -m nvfp4rt.cli bench grouped_gemm --results-dir /tmp/b 2>&1 | grep -v "^\[ceilings\]"; done > $OUT/19-bench-grouped-again.log
