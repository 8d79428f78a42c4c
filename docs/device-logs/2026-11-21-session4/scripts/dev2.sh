#!/bin/bash
export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c PYTHONUNBUFFERED=1
timeout 200 python3 .scratch/prof_dual.py 2>&1 | tee $OUT/04-prof-dual.log
