export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
timeout 500 python3 .scratch/s24/exp_c.py comp comp_a27 > $OUT/03-comp.log 2>&1; echo rc=$? >> $OUT/03-comp.log
cat $OUT/03-comp.log
