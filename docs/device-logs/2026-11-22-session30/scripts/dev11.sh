export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
timeout 200 python3 .scratch/s30/exp11.py > $OUT/11-handoff-ab.log 2>&1; echo "rc $?" >> $OUT/11-handoff-ab.log
cat $OUT/11-handoff-ab.log
timeout 330 python3 -m pytest -q -m gpu tests/test_streamk_head_check.py tests/test_grouped_gemm_cluster.py tests/test_dual_gemm_cluster.py tests/test_gemm_wgmma_cluster.py tests/test_grouped_gemm_mtiles.py > $OUT/12-pytest-gpu-a.log 2>&1; echo "rc $?" >> $OUT/12-pytest-gpu-a.log
tail -3 $OUT/12-pytest-gpu-a.log
