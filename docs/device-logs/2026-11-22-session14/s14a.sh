#!/bin/bash
export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/00-device.txt
timeout 300 python3 .scratch/s14/help_ab.py check > $OUT/01-help-check.log 2>&1
tail -3 $OUT/01-help-check.log
timeout 240 python3 .scratch/s14/help_ab.py time > $OUT/02-help-time.log 2>&1
cat $OUT/02-help-time.log | cut -c1-220
