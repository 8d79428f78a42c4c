export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
timeout 250 python3 .scratch/s30/exp2.py > $OUT/02-unit-costs.log 2>&1; echo "rc $?" >> $OUT/02-unit-costs.log
cat $OUT/02-unit-costs.log
