export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
timeout 280 python3 .scratch/s30/exp9.py > $OUT/09-partial-write-cost.log 2>&1; echo "rc $?" >> $OUT/09-partial-write-cost.log
cat $OUT/09-partial-write-cost.log
