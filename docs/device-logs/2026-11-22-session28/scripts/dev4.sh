export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
timeout 400 python3 .scratch/s28/exp4.py > $OUT/04-dbl-strip.log 2>&1; echo "rc $?" >> $OUT/04-dbl-strip.log
tail -40 $OUT/04-dbl-strip.log
