export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
timeout 250 python3 .scratch/s30/exp4.py > $OUT/04-tiles-per-run.log 2>&1; echo "rc $?" >> $OUT/04-tiles-per-run.log
cat $OUT/04-tiles-per-run.log
