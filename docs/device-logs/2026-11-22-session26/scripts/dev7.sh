export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
python3 .scratch/s26/ab2.py > $OUT/22-ab-grouped-cluster.log 2>&1
cat $OUT/22-ab-grouped-cluster.log
timeout 500 python3 -m pytest -q tests/test_grouped_gemm_cluster.py tests/test_grouped_gemm.py tests/test_dual_gemm_cluster.py tests/test_dual_gemm.py tests/test_gemm_wgmma.py tests/test_gemm.py > $OUT/23-gpu-tests-others.log 2>&1
tail -5 $OUT/23-gpu-tests-others.log
