export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
CASE1=1 timeout 500 python3 .scratch/s28/exp2.py > $OUT/02-exp2.log 2>&1; echo "rc $?" >> $OUT/02-exp2.log
tail -40 $OUT/02-exp2.log
