export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
timeout 300 python3 -m pytest -q -rs -m gpu tests/test_gemm_fused_a.py tests/test_profile_cluster_kernel.py > $OUT/20-gpu-tests.log 2>&1
echo "rc=$?" >> $OUT/20-gpu-tests.log
timeout 80 compute-sanitizer --tool memcheck --error-exitcode 9 python3 .scratch/s22/san.py > $OUT/21-memcheck.log 2>&1
echo "rc=$?" >> $OUT/21-memcheck.log
timeout 60 compute-sanitizer --tool synccheck --error-exitcode 9 python3 .scratch/s22/san.py > $OUT/22-synccheck.log 2>&1
echo "rc=$?" >> $OUT/22-synccheck.log
timeout 120 python3 .scratch/s22/exp8.py > $OUT/23-timing.log 2>&1
echo "rc=$?" >> $OUT/23-timing.log
tail -3 $OUT/20-gpu-tests.log; tail -2 $OUT/21-memcheck.log; tail -2 $OUT/22-synccheck.log; cat $OUT/23-timing.log
