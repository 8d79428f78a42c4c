#!/bin/bash
# Session 43 device run 9 (its command, as run): the dual and grouped cluster kernels' GPU tests with every kernel
# built by the driver's whole-program JIT (what "auto" falls back to where no ptxas is installed)
cd "$(dirname "$0")/../../../.." || exit 1
export PYTHONPATH=. PYTHONUNBUFFERED=1 NVFP4RT_CACHE_DIR=/tmp/nvfp4rt-cubins
NVFP4RT_COMPILER=driver timeout 280 python3 -m pytest -q -rs -p no:cacheprovider tests/test_dual_gemm_cluster.py \
  tests/test_grouped_gemm_cluster.py -m gpu > $OUT/22-cluster-tests-driver.log 2>&1
echo rc=$? >> $OUT/22-cluster-tests-driver.log
