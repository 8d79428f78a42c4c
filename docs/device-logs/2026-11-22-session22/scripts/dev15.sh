export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
timeout 300 python3 -m pytest -q -rs -m gpu tests/test_gemm_fused_a.py tests/test_gemm_wgmma_cluster.py > $OUT/15-gpu-tests.log 2>&1
echo "rc=$?" >> $OUT/15-gpu-tests.log
tail -3 $OUT/15-gpu-tests.log
