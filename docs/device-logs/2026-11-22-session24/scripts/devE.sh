export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
timeout 300 python3 .scratch/s24/exp_e.py > $OUT/05-timeline.log 2>&1; echo rc=$? >> $OUT/05-timeline.log
cat $OUT/05-timeline.log
