#!/bin/bash
# session 8, batch g: the whole GPU test suite at the final kernel commit (H100)
export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/00-smi.txt
timeout 560 python3 -m pytest -q -m gpu tests/ -p no:cacheprovider > $OUT/19-pytest-gpu-all.log 2>&1
echo "rc=$?" >> $OUT/19-pytest-gpu-all.log
tail -8 $OUT/19-pytest-gpu-all.log
