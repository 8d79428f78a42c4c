export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
timeout 250 python3 -m pytest -q -m gpu tests/test_grouped_gemm_cluster.py tests/test_grouped_gemm.py tests/test_decode_a16.py > $OUT/15-pytest-grouped-review.log 2>&1
tail -2 $OUT/15-pytest-grouped-review.log
timeout 100 compute-sanitizer --tool memcheck --error-exitcode 9 python3 tools/grouped_gemm_check.py --small --kernel cluster > $OUT/16-san-memcheck-review.log 2>&1; echo "memcheck rc=$?"; tail -1 $OUT/16-san-memcheck-review.log
