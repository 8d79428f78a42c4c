export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv > $OUT/01-help.log
timeout 500 python3 .scratch/s27/exp_help.py >> $OUT/01-help.log 2>&1; echo "rc=$?" >> $OUT/01-help.log
cat $OUT/01-help.log
