export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
timeout 200 python3 .scratch/s29/exp11.py > $OUT/19-copyout-ab.log 2>&1; echo "rc $?" >> $OUT/19-copyout-ab.log
tail -40 $OUT/19-copyout-ab.log
timeout 250 python3 -m pytest -q -m gpu tests/test_gemm_wgmma_cluster.py tests/test_grouped_gemm_mtiles.py tests/test_dual_gemm_tiles.py tests/test_gemm_fused_a.py tests/test_gemm_tail_helpers.py tests/test_streamk_head_check.py tests/test_gemm.py tests/test_dual_gemm.py tests/test_grouped_gemm.py tests/test_profile_cluster_kernel.py > $OUT/20-pytest-gpu.log 2>&1; echo "rc $?" >> $OUT/20-pytest-gpu.log
tail -3 $OUT/20-pytest-gpu.log
timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 python3 .scratch/s26/san26.py > $OUT/21-memcheck.log 2>&1; echo "rc $?" >> $OUT/21-memcheck.log
tail -3 $OUT/21-memcheck.log
