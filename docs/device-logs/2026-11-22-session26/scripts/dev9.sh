export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
python3 .scratch/s26/ab_new.py > $OUT/31-ab-loop.log 2>&1
python3 .scratch/s26/ab2.py > $OUT/32-ab-loop-grouped-cluster.log 2>&1
cat $OUT/31-ab-loop.log $OUT/32-ab-loop-grouped-cluster.log | grep -v "^  .*: OK"
python3 .scratch/s26/san26.py > $OUT/33-san-plain.log 2>&1; echo "rc=$?" >> $OUT/33-san-plain.log; tail -2 $OUT/33-san-plain.log
timeout 240 compute-sanitizer --tool memcheck --error-exitcode 9 python3 .scratch/s26/san26.py > $OUT/34-memcheck.log 2>&1; echo "rc=$?" >> $OUT/34-memcheck.log; tail -2 $OUT/34-memcheck.log
timeout 200 compute-sanitizer --tool synccheck --error-exitcode 9 python3 .scratch/s26/san26.py > $OUT/35-synccheck.log 2>&1; echo "rc=$?" >> $OUT/35-synccheck.log; tail -2 $OUT/35-synccheck.log
