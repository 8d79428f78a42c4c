export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
python3 .scratch/s26/exp5.py clk clk_early_post clk_ep_fp clk_w1 clk_nobar > $OUT/04-clk-early.log 2>&1
cat $OUT/04-clk-early.log
python3 .scratch/s26/exp3.py x_early_post x_early_post2 x_ep_fp x_w1 nobar > $OUT/05-time-early.log 2>&1
cat $OUT/05-time-early.log
