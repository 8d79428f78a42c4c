export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
timeout 100 python3 .scratch/s29/exp4.py > $OUT/05-case2-ab.log 2>&1; echo "rc $?" >> $OUT/05-case2-ab.log
tail -12 $OUT/05-case2-ab.log
timeout 220 python3 -m pytest -q -m gpu tests/test_grouped_gemm_cluster.py tests/test_dual_gemm_cluster.py tests/test_grouped_gemm.py tests/test_dual_gemm.py > $OUT/06-pytest-gpu-cluster.log 2>&1; echo "rc $?" >> $OUT/06-pytest-gpu-cluster.log
tail -4 $OUT/06-pytest-gpu-cluster.log
timeout 250 compute-sanitizer --tool memcheck --error-exitcode 9 python3 .scratch/s26/san26.py > $OUT/07-memcheck.log 2>&1; echo "rc $?" >> $OUT/07-memcheck.log
tail -8 $OUT/07-memcheck.log
