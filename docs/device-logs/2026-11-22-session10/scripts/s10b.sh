#!/bin/bash
export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
timeout 300 python3 .scratch/kss_diag.py > $OUT/04-kss-diag.log 2>&1; echo "rc=$?" >> $OUT/04-kss-diag.log
cat $OUT/04-kss-diag.log
