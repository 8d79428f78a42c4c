export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
python3 .scratch/s26/exp3.py x_phint x_pspin x_chint x_pchint noAB noAB_phint noAB_pspin nobar > $OUT/06-time-poll.log 2>&1
cat $OUT/06-time-poll.log
timeout 200 python3 .scratch/s26/exp3.py noAB nobar nobarC > $OUT/07-time-nobarC.log 2>&1
cat $OUT/07-time-nobarC.log
