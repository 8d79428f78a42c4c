export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
timeout 280 python3 .scratch/s30/exp8.py > $OUT/08-b-policy.log 2>&1; echo "rc $?" >> $OUT/08-b-policy.log
cat $OUT/08-b-policy.log | grep -v "bits equal"
