export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
timeout 300 python3 .scratch/s28/exp8.py > $OUT/08-wgrate-zero.log 2>&1; echo "rc $?" >> $OUT/08-wgrate-zero.log
tail -40 $OUT/08-wgrate-zero.log
