#!/bin/bash
export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/02-dual-tiles.log
timeout 400 python3 .scratch/s17/exp2.py >> $OUT/02-dual-tiles.log 2>&1
echo "rc $?" >> $OUT/02-dual-tiles.log
grep -v "^   repeat identical: True" $OUT/02-dual-tiles.log | tail -70
