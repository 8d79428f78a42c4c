#!/bin/bash
export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
timeout 400 python3 .scratch/s17/exp5.py > $OUT/07-rings.log 2>&1
echo "rc $?" >> $OUT/07-rings.log
cat $OUT/07-rings.log | cut -c1-250
