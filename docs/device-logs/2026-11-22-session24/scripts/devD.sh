export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
timeout 500 python3 .scratch/s24/exp_d.py early early_desc64 early_pf2 comp earlyF early_earlyF comp_earlyF comp_earlyF4 > $OUT/04-ablate.log 2>&1; echo rc=$? >> $OUT/04-ablate.log
cat $OUT/04-ablate.log | grep -v ": OK"
