export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.draw --format=csv > $OUT/00-smi.log 2>&1
timeout 400 python3 .scratch/s24/exp_a.py 1 2 > $OUT/01-expA.log 2>&1; echo rc=$? >> $OUT/01-expA.log
cat $OUT/01-expA.log
