export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
timeout 250 python3 -m pytest -q -m gpu tests/test_dual_gemm_tiles.py tests/test_gemm_fused_a.py tests/test_gemm_tail_helpers.py tests/test_grouped_gemm.py tests/test_gemm.py tests/test_dual_gemm.py tests/test_profile_cluster_kernel.py tests/test_decode_a16.py > $OUT/13-pytest-gpu-b.log 2>&1; echo "rc $?" >> $OUT/13-pytest-gpu-b.log
tail -3 $OUT/13-pytest-gpu-b.log
for w in gemm dual grouped; do timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 python3 .scratch/s26/san26.py $w > $OUT/14-memcheck-$w.log 2>&1; echo "rc $?" >> $OUT/14-memcheck-$w.log; tail -2 $OUT/14-memcheck-$w.log; done
