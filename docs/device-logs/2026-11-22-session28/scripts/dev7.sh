export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
timeout 400 python3 .scratch/s28/exp7.py > $OUT/07-case1-profile.log 2>&1; echo "rc $?" >> $OUT/07-case1-profile.log
tail -50 $OUT/07-case1-profile.log
