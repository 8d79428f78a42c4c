export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
timeout 150 python3 .scratch/s23/exp4.py pf2 > $OUT/19-pf2.log 2>&1; echo rc=$? >> $OUT/19-pf2.log
grep -v " OK$" $OUT/19-pf2.log
timeout 100 python3 .scratch/s23/exp3.py strip2 strip2_pf2 > $OUT/20-strip-pf2.log 2>&1; echo rc=$? >> $OUT/20-strip-pf2.log
cat $OUT/20-strip-pf2.log
timeout 100 python3 .scratch/s23/exp5.py clk clk_pf2 > $OUT/21-clk-pf2.log 2>&1; echo rc=$? >> $OUT/21-clk-pf2.log
cat $OUT/21-clk-pf2.log
