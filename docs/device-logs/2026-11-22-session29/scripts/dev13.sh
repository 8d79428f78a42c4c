export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
timeout 100 python3 .scratch/s29/exp12.py > $OUT/22-case2-copyout-ab.log 2>&1; echo "rc $?" >> $OUT/22-case2-copyout-ab.log
tail -8 $OUT/22-case2-copyout-ab.log
timeout 200 python3 -m pytest -q -m gpu tests/test_grouped_gemm_cluster.py tests/test_grouped_gemm.py > $OUT/23-pytest-gpu-grouped.log 2>&1; echo "rc $?" >> $OUT/23-pytest-gpu-grouped.log
tail -3 $OUT/23-pytest-gpu-grouped.log
timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 python3 .scratch/s26/san26.py grouped > $OUT/24-memcheck-grouped.log 2>&1; echo "rc $?" >> $OUT/24-memcheck-grouped.log
tail -2 $OUT/24-memcheck-grouped.log
timeout 150 compute-sanitizer --tool synccheck --error-exitcode 9 python3 .scratch/s26/san26.py > $OUT/25-synccheck.log 2>&1; echo "rc $?" >> $OUT/25-synccheck.log
tail -2 $OUT/25-synccheck.log
