#!/bin/bash
export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
timeout 200 python3 .scratch/s15/c4_tail.py > $OUT/14-tail.log 2>&1; cut -c1-200 $OUT/14-tail.log
