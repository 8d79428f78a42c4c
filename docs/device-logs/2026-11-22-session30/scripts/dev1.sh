export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader > $OUT/00-device.log
timeout 280 python3 .scratch/s30/exp1.py > $OUT/01-loopsets.log 2>&1; echo "rc $?" >> $OUT/01-loopsets.log
cat $OUT/01-loopsets.log | tail -30
