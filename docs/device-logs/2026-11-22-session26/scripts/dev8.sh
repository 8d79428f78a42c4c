export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
python3 .scratch/s26/san26.py > $OUT/24-san-plain.log 2>&1; echo "rc=$?" >> $OUT/24-san-plain.log; tail -3 $OUT/24-san-plain.log
timeout 240 compute-sanitizer --tool memcheck --error-exitcode 9 python3 .scratch/s26/san26.py > $OUT/25-memcheck.log 2>&1; echo "rc=$?" >> $OUT/25-memcheck.log; tail -3 $OUT/25-memcheck.log
timeout 200 compute-sanitizer --tool synccheck --error-exitcode 9 python3 .scratch/s26/san26.py > $OUT/26-synccheck.log 2>&1; echo "rc=$?" >> $OUT/26-synccheck.log; tail -3 $OUT/26-synccheck.log
