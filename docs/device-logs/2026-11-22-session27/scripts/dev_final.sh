export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
git log --oneline -1 > $OUT/16-gpu-tests.log
timeout 420 python3 -m pytest -q -m gpu tests/test_gemm_wgmma_cluster.py tests/test_grouped_gemm_mtiles.py tests/test_dual_gemm_tiles.py tests/test_gemm_fused_a.py tests/test_gemm_tail_helpers.py tests/test_streamk_head_check.py tests/test_grouped_gemm_cluster.py tests/test_dual_gemm_cluster.py tests/test_grouped_gemm.py tests/test_gemm.py tests/test_dual_gemm.py tests/test_profile_cluster_kernel.py >> $OUT/16-gpu-tests.log 2>&1; echo "rc=$?" >> $OUT/16-gpu-tests.log
tail -3 $OUT/16-gpu-tests.log
timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 python3 .scratch/s26/san26.py > $OUT/17-memcheck.log 2>&1; echo "rc=$?" >> $OUT/17-memcheck.log; tail -2 $OUT/17-memcheck.log
