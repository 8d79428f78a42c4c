export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
python3 .scratch/s26/exp3.py noAB nobar nobar_tw nobar_tw4 nobar_tw1 > $OUT/08-time-tw.log 2>&1
cat $OUT/08-time-tw.log
