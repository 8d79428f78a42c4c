set -x
export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv
python3 .scratch/s26/exp5.py clk clk_fullearly clk_topearly clk_strip2 clk_strip2_fe clk_strip2_te > $OUT/01-clk.log 2>&1
tail -3 $OUT/01-clk.log
python3 .scratch/s26/exp3.py x_fullearly x_fullearly6 x_topearly strip2 strip2_fe strip2_te > $OUT/02-time.log 2>&1
cat $OUT/01-clk.log $OUT/02-time.log
