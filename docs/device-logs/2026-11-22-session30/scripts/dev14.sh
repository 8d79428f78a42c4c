export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
timeout 250 python3 .scratch/s30/exp12.py > $OUT/17-case2-costs.log 2>&1; echo "rc $?" >> $OUT/17-case2-costs.log
cat $OUT/17-case2-costs.log
