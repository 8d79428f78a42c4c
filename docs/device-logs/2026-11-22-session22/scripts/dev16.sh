export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
timeout 300 python3 -m pytest -q -rs -m gpu tests/test_gemm_fused_a.py tests/test_gemm_wgmma_cluster.py -k "fused or moved or repeat or flag or two" > $OUT/16-gpu-tests.log 2>&1
echo "rc=$?" >> $OUT/16-gpu-tests.log
tail -3 $OUT/16-gpu-tests.log
