export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
timeout 280 python3 .scratch/s30/exp10.py > $OUT/10-fences.log 2>&1; echo "rc $?" >> $OUT/10-fences.log
cat $OUT/10-fences.log
