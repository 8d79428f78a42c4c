export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
timeout 250 python3 .scratch/s30/exp14.py > $OUT/21-case3-rings.log 2>&1; echo "rc $?" >> $OUT/21-case3-rings.log
cat $OUT/21-case3-rings.log
