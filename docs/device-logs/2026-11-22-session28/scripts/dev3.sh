export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
timeout 300 python3 .scratch/s28/exp3.py > $OUT/03-clock.log 2>&1; echo "rc $?" >> $OUT/03-clock.log
tail -40 $OUT/03-clock.log
