export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
timeout 300 python3 .scratch/s29/exp7.py > $OUT/13-rst.log 2>&1; echo "rc $?" >> $OUT/13-rst.log
tail -20 $OUT/13-rst.log
