export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
bash .scratch/s23/sass_gap.sh .scratch/s23/base.cubin .scratch/s23/pr_a06.cubin .scratch/s23/pr_a27.cubin .scratch/s23/pr_a16.cubin > $OUT/06-sass-gaps.log 2>&1
cat $OUT/06-sass-gaps.log
timeout 280 python3 .scratch/s23/exp4.py a06 a27 a16 constsc nodec > $OUT/07-ahead.log 2>&1; echo rc=$? >> $OUT/07-ahead.log
grep -v " OK$" $OUT/07-ahead.log
