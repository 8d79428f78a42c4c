export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
timeout 300 python3 .scratch/s29/exp14.py > $OUT/32-whole-parts.log 2>&1; echo "rc $?" >> $OUT/32-whole-parts.log
tail -16 $OUT/32-whole-parts.log
