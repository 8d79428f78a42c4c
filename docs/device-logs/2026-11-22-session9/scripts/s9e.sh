#!/bin/bash
# session 9, batch e (H100): the K split with three wgmma groups in flight
export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/00-smi.txt
timeout 200 python3 .scratch/depth_ab.py > $OUT/12-depth-ab.log 2>&1; echo "rc=$?" >> $OUT/12-depth-ab.log
cat $OUT/00-smi.txt $OUT/12-depth-ab.log
