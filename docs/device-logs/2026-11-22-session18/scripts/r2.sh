#!/bin/bash
export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
timeout 500 python3 .scratch/s18/exp2.py > $OUT/02-cycles.log 2>&1
echo "rc $?" >> $OUT/02-cycles.log
cut -c1-250 $OUT/02-cycles.log
