#!/bin/bash
export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
timeout 500 python3 .scratch/s18/exp1.py > $OUT/01-exp1.log 2>&1
echo "rc $?" >> $OUT/01-exp1.log
cut -c1-250 $OUT/01-exp1.log
