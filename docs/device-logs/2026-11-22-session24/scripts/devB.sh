export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
timeout 400 python3 .scratch/s24/exp_b.py 1 3 6 > $OUT/02-warm.log 2>&1; echo rc=$? >> $OUT/02-warm.log
cat $OUT/02-warm.log
