export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
timeout 300 python3 .scratch/s29/exp15.py > $OUT/33-split-copy.log 2>&1; echo "rc $?" >> $OUT/33-split-copy.log
tail -24 $OUT/33-split-copy.log
