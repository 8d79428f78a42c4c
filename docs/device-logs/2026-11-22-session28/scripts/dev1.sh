export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv > $OUT/01-exp1.log 2>&1
timeout 500 python3 .scratch/s28/exp1.py >> $OUT/01-exp1.log 2>&1; echo "rc $?" >> $OUT/01-exp1.log
tail -40 $OUT/01-exp1.log
