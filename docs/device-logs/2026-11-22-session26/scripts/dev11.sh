export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
python3 .scratch/s26/ab_new.py > $OUT/39-ab-loop2.log 2>&1
python3 .scratch/s26/ab2.py > $OUT/40-ab-loop2-grouped-cluster.log 2>&1
cat $OUT/39-ab-loop2.log $OUT/40-ab-loop2-grouped-cluster.log | grep -v "^done"
python3 .scratch/s26/san26.py > $OUT/41-san-plain.log 2>&1; echo "rc=$?" >> $OUT/41-san-plain.log; tail -2 $OUT/41-san-plain.log
timeout 240 compute-sanitizer --tool memcheck --error-exitcode 9 python3 .scratch/s26/san26.py > $OUT/42-memcheck.log 2>&1; echo "rc=$?" >> $OUT/42-memcheck.log; tail -2 $OUT/42-memcheck.log
timeout 200 compute-sanitizer --tool synccheck --error-exitcode 9 python3 .scratch/s26/san26.py > $OUT/43-synccheck.log 2>&1; echo "rc=$?" >> $OUT/43-synccheck.log; tail -2 $OUT/43-synccheck.log
timeout 420 python3 -m pytest -q -m gpu tests/test_gemm_wgmma_cluster.py tests/test_grouped_gemm_mtiles.py tests/test_dual_gemm_tiles.py tests/test_gemm_fused_a.py tests/test_gemm_tail_helpers.py tests/test_streamk_head_check.py tests/test_grouped_gemm_cluster.py tests/test_dual_gemm_cluster.py tests/test_grouped_gemm.py tests/test_gemm.py tests/test_dual_gemm.py tests/test_profile_cluster_kernel.py > $OUT/44-gpu-tests.log 2>&1; echo "rc=$?" >> $OUT/44-gpu-tests.log
tail -3 $OUT/44-gpu-tests.log
