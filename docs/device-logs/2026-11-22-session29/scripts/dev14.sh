export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
timeout 200 python3 .scratch/s29/exp13.py > $OUT/26-stmatrix-ab.log 2>&1; echo "rc $?" >> $OUT/26-stmatrix-ab.log
tail -32 $OUT/26-stmatrix-ab.log
timeout 200 python3 -m pytest -q -m gpu tests/test_gemm_wgmma_cluster.py tests/test_grouped_gemm_mtiles.py tests/test_dual_gemm_tiles.py tests/test_gemm_fused_a.py tests/test_streamk_head_check.py tests/test_gemm_tail_helpers.py tests/test_profile_cluster_kernel.py > $OUT/27-pytest-gpu.log 2>&1; echo "rc $?" >> $OUT/27-pytest-gpu.log
tail -3 $OUT/27-pytest-gpu.log
timeout 90 compute-sanitizer --tool memcheck --error-exitcode 9 python3 .scratch/s26/san26.py > $OUT/28-memcheck.log 2>&1; echo "rc $?" >> $OUT/28-memcheck.log
tail -2 $OUT/28-memcheck.log
timeout 90 compute-sanitizer --tool racecheck --error-exitcode 9 python3 .scratch/s26/san26.py grouped > $OUT/29-racecheck.log 2>&1; echo "rc $?" >> $OUT/29-racecheck.log
tail -2 $OUT/29-racecheck.log
