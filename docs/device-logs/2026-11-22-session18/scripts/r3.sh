#!/bin/bash
export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
timeout 300 python3 .scratch/s18/wgrate.py > $OUT/11-wgmma-rate-lds.log 2>&1
echo "rc $?" >> $OUT/11-wgmma-rate-lds.log
cut -c1-250 $OUT/11-wgmma-rate-lds.log
