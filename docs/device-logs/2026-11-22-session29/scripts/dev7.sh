export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
timeout 300 python3 .scratch/s29/exp6.py > $OUT/12-per-unit.log 2>&1; echo "rc $?" >> $OUT/12-per-unit.log
tail -14 $OUT/12-per-unit.log
