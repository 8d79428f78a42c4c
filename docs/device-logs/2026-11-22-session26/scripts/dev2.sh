export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
python3 .scratch/s26/exp5.py clk clk_strip2 clk_strip3 clk_strip4 clk_strip5 clk_nobar clk_nobar_norel > $OUT/03-clk-strip.log 2>&1
cat $OUT/03-clk-strip.log
