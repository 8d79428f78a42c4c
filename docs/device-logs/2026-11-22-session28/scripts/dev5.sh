export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
timeout 400 python3 .scratch/s28/exp5.py > $OUT/05-data.log 2>&1; echo "rc $?" >> $OUT/05-data.log
tail -40 $OUT/05-data.log
