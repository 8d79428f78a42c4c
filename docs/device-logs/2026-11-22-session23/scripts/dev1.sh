export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
timeout 280 python3 .scratch/s23/exp1.py A B C > $OUT/01-exp1.log 2>&1
echo "rc=$?" >> $OUT/01-exp1.log
cat $OUT/01-exp1.log | grep -v " OK$" | cut -c1-240
