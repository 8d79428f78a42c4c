export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
timeout 420 python3 -m pytest -q -rs -m gpu tests/test_gemm_fused_a.py tests/test_gemm_wgmma_cluster.py tests/test_dual_gemm_tiles.py tests/test_grouped_gemm_mtiles.py > $OUT/10-gpu-tests.log 2>&1
echo "rc=$?" >> $OUT/10-gpu-tests.log
timeout 80 compute-sanitizer --tool memcheck --error-exitcode 9 python3 .scratch/s22/san.py > $OUT/11-memcheck.log 2>&1
echo "rc=$?" >> $OUT/11-memcheck.log
timeout 60 compute-sanitizer --tool synccheck --error-exitcode 9 python3 .scratch/s22/san.py > $OUT/12-synccheck.log 2>&1
echo "rc=$?" >> $OUT/12-synccheck.log
tail -4 $OUT/10-gpu-tests.log; tail -3 $OUT/11-memcheck.log $OUT/12-synccheck.log
