export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
timeout 250 python3 .scratch/s30/exp5.py > $OUT/05-grouped-c1.log 2>&1; echo "rc $?" >> $OUT/05-grouped-c1.log
cat $OUT/05-grouped-c1.log
