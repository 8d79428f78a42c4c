export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
timeout 300 python3 .scratch/s29/exp8.py > $OUT/14-warm-l2.log 2>&1; echo "rc $?" >> $OUT/14-warm-l2.log
tail -16 $OUT/14-warm-l2.log
