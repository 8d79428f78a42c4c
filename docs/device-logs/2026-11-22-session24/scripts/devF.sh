export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
timeout 550 python3 .scratch/s24/exp_f.py bfirst afirst abfirst bsleep only=g1,g3,c3,d3 > $OUT/06-order.log 2>&1; echo rc=$? >> $OUT/06-order.log
grep -v ": OK" $OUT/06-order.log
