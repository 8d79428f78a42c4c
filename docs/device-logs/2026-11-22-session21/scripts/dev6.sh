export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
timeout 280 python3 .scratch/s21/exp10.py > $OUT/18-grouped-runs.log 2>&1
echo "rc=$?" >> $OUT/18-grouped-runs.log
tail -n 12 $OUT/18-grouped-runs.log
