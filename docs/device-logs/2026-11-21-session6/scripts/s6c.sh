export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
timeout 250 python3 .scratch/calib_exp.py A,P 2>&1 | tee $OUT/08-calib-predecode.log
timeout 200 python3 .scratch/prof_run.py P 2>&1 | tee $OUT/09-prof-predecode.log
