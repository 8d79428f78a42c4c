export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
timeout 250 python3 .scratch/s30/exp6.py > $OUT/06-whole-vs-kernel.log 2>&1; echo "rc $?" >> $OUT/06-whole-vs-kernel.log
cat $OUT/06-whole-vs-kernel.log
