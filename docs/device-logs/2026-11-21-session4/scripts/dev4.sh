#!/bin/bash
export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c PYTHONUNBUFFERED=1
timeout 100 python3 -m pytest -q -p no:cacheprovider tests/test_dual_gemm_cluster.py -m gpu -k "matches_float64 and (256-4096 or 257-65 or 300-130 or 129-1)" 2>&1 | tail -3 | tee $OUT/06-pytest-new-epilogue.log
timeout 200 python3 .scratch/prof_dual3.py 2>&1 | tee $OUT/07-epilogue-old-new.log
