#!/bin/bash
export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
timeout 300 python3 .scratch/s16/api_rep.py > $OUT/10-api-repeats.log 2>&1; cat $OUT/10-api-repeats.log | cut -c1-250
