export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
timeout 400 python3 .scratch/s28/exp10.py > $OUT/10-per-unit-l2.log 2>&1; echo "rc $?" >> $OUT/10-per-unit-l2.log
tail -30 $OUT/10-per-unit-l2.log
