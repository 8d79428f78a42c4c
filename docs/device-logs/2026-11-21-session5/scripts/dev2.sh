export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
timeout 300 python3 .scratch/calib2.py > $OUT/05-calib2.log 2>&1
cat $OUT/05-calib2.log
