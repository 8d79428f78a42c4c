export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
timeout 250 python3 .scratch/s30/exp13.py > $OUT/18-case2-costs2.log 2>&1; echo "rc $?" >> $OUT/18-case2-costs2.log
cat $OUT/18-case2-costs2.log
