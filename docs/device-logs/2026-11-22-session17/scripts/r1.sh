#!/bin/bash
export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv > $OUT/01-exp1.log
timeout 500 python3 .scratch/s17/exp1.py >> $OUT/01-exp1.log 2>&1
tail -40 $OUT/01-exp1.log
