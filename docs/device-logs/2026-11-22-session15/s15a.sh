#!/bin/bash
export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/00-device.txt
timeout 200 python3 -m pytest -q -m gpu tests/test_grouped_gemm_mtiles.py -x > $OUT/04-mtiles-tests.log 2>&1
tail -5 $OUT/04-mtiles-tests.log
timeout 200 python3 .scratch/s15/mt_time.py > $OUT/05-mtiles-time.log 2>&1; cut -c1-220 $OUT/05-mtiles-time.log
