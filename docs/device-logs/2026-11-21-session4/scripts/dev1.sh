#!/bin/bash
export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/env.txt
timeout 150 python3 tools/dual_gemm_check.py --small --kernel cluster 2>&1 | tee $OUT/01-small-cluster.log | tail -12
timeout 200 python3 -m pytest -q -p no:cacheprovider -rs tests/test_dual_gemm_cluster.py -m gpu 2>&1 | tee $OUT/02-pytest-dual-cluster.log | tail -15
timeout 220 python3 tools/dual_gemm_check.py --sweep 2>&1 | tee $OUT/03-sweep.log | tail -14
