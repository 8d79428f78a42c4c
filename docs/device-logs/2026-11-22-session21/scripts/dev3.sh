export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
timeout 400 python3 .scratch/s21/exp5.py > $OUT/08-staged-gap.log 2>&1
echo "rc=$?" >> $OUT/08-staged-gap.log
tail -n 30 $OUT/08-staged-gap.log
