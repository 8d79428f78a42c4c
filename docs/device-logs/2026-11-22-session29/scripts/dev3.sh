export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
timeout 250 python3 .scratch/s29/exp3.py > $OUT/03-l2-policy-ab.log 2>&1; echo "rc $?" >> $OUT/03-l2-policy-ab.log
tail -70 $OUT/03-l2-policy-ab.log
timeout 330 python3 -m pytest -q -m gpu tests/test_gemm_wgmma_cluster.py tests/test_grouped_gemm_mtiles.py tests/test_dual_gemm_tiles.py tests/test_gemm_fused_a.py tests/test_gemm_tail_helpers.py tests/test_streamk_head_check.py tests/test_grouped_gemm_cluster.py tests/test_dual_gemm_cluster.py tests/test_grouped_gemm.py tests/test_gemm.py tests/test_dual_gemm.py tests/test_profile_cluster_kernel.py > $OUT/04-pytest-gpu.log 2>&1; echo "rc $?" >> $OUT/04-pytest-gpu.log
tail -5 $OUT/04-pytest-gpu.log
