export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
timeout 300 python3 .scratch/s29/exp9.py > $OUT/15-decode-beside.log 2>&1; echo "rc $?" >> $OUT/15-decode-beside.log
tail -20 $OUT/15-decode-beside.log
