# Session 36, device run 6 (H100) at the session's final code: the GPU suites of the grouped plans, the stream-K head
# check, the cluster GEMM and the dual's tiles (the cluster template's header changed in this session).
export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv > $OUT/17-device.log 2>&1
timeout 560 python3 -m pytest -q -m gpu tests/test_grouped_gemm_mtiles.py tests/test_grouped_gemm.py tests/test_streamk_head_check.py tests/test_gemm_wgmma_cluster.py tests/test_dual_gemm_tiles.py > $OUT/18-tests.log 2>&1; echo "rc $?" >> $OUT/18-tests.log
tail -5 $OUT/18-tests.log
