#!/bin/bash
# session 9, batch a(2): K-split ring depths without the staging tile; grouped DECODE_COST on the H100
export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/00-smi.txt
timeout 300 python3 .scratch/ring_ab.py > $OUT/01-ring-ab.log 2>&1; echo "rc=$?" >> $OUT/01-ring-ab.log
timeout 200 python3 .scratch/grp_cost.py > $OUT/02-grouped-cost.log 2>&1; echo "rc=$?" >> $OUT/02-grouped-cost.log
cat $OUT/01-ring-ab.log $OUT/02-grouped-cost.log
