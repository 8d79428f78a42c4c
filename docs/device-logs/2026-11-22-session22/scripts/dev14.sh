export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
timeout 250 python3 .scratch/s22/exp10.py 2>&1 | tee $OUT/14-small-shapes.log
