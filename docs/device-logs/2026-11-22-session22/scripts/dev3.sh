export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
timeout 300 python3 .scratch/s22/exp2.py > $OUT/01-exp2.log 2>&1; echo "rc=$?" >> $OUT/01-exp2.log; cat $OUT/01-exp2.log
