export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
timeout 540 python3 .scratch/s29/exp2.py > $OUT/02-l2-policy-whole.log 2>&1; echo "rc $?" >> $OUT/02-l2-policy-whole.log
tail -60 $OUT/02-l2-policy-whole.log
