export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv > $OUT/00-smi.log 2>&1
timeout 300 python3 .scratch/s22/exp1.py > $OUT/01-exp1.log 2>&1
echo "rc=$?" >> $OUT/01-exp1.log
timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 python3 .scratch/s22/san.py > $OUT/02-memcheck.log 2>&1
echo "rc=$?" >> $OUT/02-memcheck.log
timeout 100 compute-sanitizer --tool synccheck --error-exitcode 9 python3 .scratch/s22/san.py > $OUT/03-synccheck.log 2>&1
echo "rc=$?" >> $OUT/03-synccheck.log
tail -n 5 $OUT/01-exp1.log $OUT/02-memcheck.log $OUT/03-synccheck.log
