export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
timeout 150 python3 .scratch/s23/exp3.py noA16 noB noAB nodec nodec_noAB early > $OUT/14-traffic.log 2>&1; echo rc=$? >> $OUT/14-traffic.log
cat $OUT/14-traffic.log
timeout 150 python3 .scratch/s23/exp5.py clk clk_noA16 clk_noB clk_noAB clk_early clk_nodec > $OUT/15-clk-traffic.log 2>&1; echo rc=$? >> $OUT/15-clk-traffic.log
cat $OUT/15-clk-traffic.log
