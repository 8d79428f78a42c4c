#!/bin/bash
# Session 43 device run 4: at 3825a8df1ccb, the whole test suite and the dual and grouped benches (the default "auto" compiler)
cd "$(dirname "$0")/../../../.." || exit 1
export PYTHONPATH=. PYTHONUNBUFFERED=1 NVFP4RT_CACHE_DIR=/tmp/nvfp4rt-cubins NVFP4RT_GIT_REVISION=3825a8df1ccb
nvidia-smi --query-gpu=name,driver_version --format=csv > "$OUT/11-smi.log" 2>&1
timeout 430 python3 -m pytest -q -rs -p no:cacheprovider tests > "$OUT/12-pytest.log" 2>&1
echo rc=$? >> "$OUT/12-pytest.log"
for op in dual_gemm grouped_gemm; do
  timeout 70 python3 -m nvfp4rt.cli bench $op --results-dir $OUT > "$OUT/14-bench-$op.log" 2>&1
  echo rc=$? >> "$OUT/14-bench-$op.log"
done
