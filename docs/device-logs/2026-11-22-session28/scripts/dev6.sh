export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
timeout 300 python3 .scratch/s28/exp6.py > $OUT/06-wgrate-time.log 2>&1; echo "rc $?" >> $OUT/06-wgrate-time.log
tail -40 $OUT/06-wgrate-time.log
