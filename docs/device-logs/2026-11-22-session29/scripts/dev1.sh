export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
timeout 540 python3 .scratch/s29/exp1.py > $OUT/01-l2-policy.log 2>&1; echo "rc $?" >> $OUT/01-l2-policy.log
tail -45 $OUT/01-l2-policy.log
