export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
timeout 280 python3 .scratch/s30/exp3.py > $OUT/03-mtile-schedules.log 2>&1; echo "rc $?" >> $OUT/03-mtile-schedules.log
cat $OUT/03-mtile-schedules.log
