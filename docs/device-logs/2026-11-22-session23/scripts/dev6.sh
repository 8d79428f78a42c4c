export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
timeout 200 python3 .scratch/s23/exp4.py early early_try early123 > $OUT/12-early.log 2>&1; echo rc=$? >> $OUT/12-early.log
grep -v " OK$" $OUT/12-early.log
timeout 100 python3 .scratch/s23/exp5.py clk clk_early > $OUT/13-clk-early.log 2>&1; echo rc=$? >> $OUT/13-clk-early.log
cat $OUT/13-clk-early.log
