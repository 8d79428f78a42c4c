export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
timeout 400 python3 .scratch/s28/exp9.py > $OUT/09-two-counts.log 2>&1; echo "rc $?" >> $OUT/09-two-counts.log
tail -40 $OUT/09-two-counts.log
