#!/bin/bash
export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
timeout 300 python3 .scratch/s15/c3_sweep.py > $OUT/11-case3-rings.log 2>&1; cut -c1-200 $OUT/11-case3-rings.log
