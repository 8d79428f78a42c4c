export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
timeout 150 python3 .scratch/s23/exp3.py nodec_noAB strip1 strip2 > $OUT/16-strip.log 2>&1; echo rc=$? >> $OUT/16-strip.log
cat $OUT/16-strip.log
timeout 100 python3 .scratch/s23/exp5.py clk clk_strip2 > $OUT/17-clk-strip.log 2>&1; echo rc=$? >> $OUT/17-clk-strip.log
cat $OUT/17-clk-strip.log
