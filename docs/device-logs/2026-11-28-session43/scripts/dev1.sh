#!/bin/bash
# Session 43 device run 1: the module tests (every compiler), the kernel suites with every kernel built by the
# toolkit's ptxas (whole programs), and the gemm, dual and grouped benches under ptxas
cd "$(dirname "$0")/../../../.." || exit 1
export PYTHONPATH=. PYTHONUNBUFFERED=1 NVFP4RT_CACHE_DIR=/tmp/nvfp4rt-cubins
nvidia-smi --query-gpu=name,driver_version --format=csv > "$OUT/01-smi.log" 2>&1
timeout 60 python3 -m pytest -q -rs tests/test_module.py > "$OUT/02-module-tests.log" 2>&1
echo rc=$? >> "$OUT/02-module-tests.log"
NVFP4RT_COMPILER=ptxas timeout 240 python3 -m pytest -q -rs tests/test_dual_gemm_cluster.py tests/test_grouped_gemm_cluster.py \
  tests/test_grouped_gemm.py tests/test_dual_gemm.py tests/test_gemm_wgmma.py tests/test_gemm_wgmma_cluster.py \
  tests/test_grouped_gemm_mtiles.py > "$OUT/03-gpu-tests-ptxas.log" 2>&1
echo rc=$? >> "$OUT/03-gpu-tests-ptxas.log"
for op in grouped_gemm dual_gemm gemm; do
  NVFP4RT_COMPILER=ptxas timeout 90 python3 -m nvfp4rt.cli bench $op --results-dir $OUT/bench > "$OUT/04-bench-$op-ptxas.log" 2>&1
  echo rc=$? >> "$OUT/04-bench-$op-ptxas.log"
done
