#!/bin/bash
export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/env.txt
timeout 200 python3 -m pytest -q -p no:cacheprovider -rs tests/test_dual_gemm_cluster.py tests/test_dual_gemm.py -m gpu 2>&1 | tee $OUT/11-pytest-dual-gpu.log | tail -3
timeout 200 python3 tools/dual_gemm_check.py --no-time 2>&1 | tee $OUT/12-dual-check-auto.log | tail -3
NVFP4RT_GIT_REVISION=$REV timeout 200 python3 tools/bench.py dual_gemm 2>&1 | tee $OUT/13-bench-dual.log | tail -8
cp bench/results/dual_gemm-*h200*.json $OUT/ 2>/dev/null
