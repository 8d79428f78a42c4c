#!/bin/bash
export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
timeout 300 python3 .scratch/s18/prof.py > $OUT/04-prof.log 2>&1
echo "rc $?" >> $OUT/04-prof.log
cut -c1-200 $OUT/04-prof.log
