export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
python3 .scratch/s26/ab_new.py > $OUT/20-ab-nodiv.log 2>&1
cat $OUT/20-ab-nodiv.log
timeout 400 python3 -m pytest -q -x tests/test_gemm_wgmma_cluster.py tests/test_grouped_gemm_mtiles.py tests/test_dual_gemm_tiles.py tests/test_gemm_fused_a.py tests/test_gemm_tail_helpers.py tests/test_streamk_head_check.py > $OUT/21-gpu-tests.log 2>&1
tail -5 $OUT/21-gpu-tests.log
