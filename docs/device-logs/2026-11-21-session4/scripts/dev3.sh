#!/bin/bash
export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c PYTHONUNBUFFERED=1
timeout 250 python3 .scratch/prof_dual2.py 2>&1 | tee $OUT/05-prof-dual-parts.log
