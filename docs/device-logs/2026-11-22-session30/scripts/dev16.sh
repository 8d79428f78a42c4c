export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
export NVFP4RT_GIT_REVISION=02eee1c420a1
timeout 150 python3 tools/bench.py grouped_gemm --results-dir $OUT > $OUT/19-bench-grouped_gemm.log 2>&1; echo "rc $?" >> $OUT/19-bench-grouped_gemm.log; tail -7 $OUT/19-bench-grouped_gemm.log
timeout 300 python3 -m pytest -q -m gpu tests/test_grouped_gemm_cluster.py tests/test_grouped_gemm.py tests/test_streamk_head_check.py > $OUT/20-pytest-gpu-grouped.log 2>&1; echo "rc $?" >> $OUT/20-pytest-gpu-grouped.log
tail -3 $OUT/20-pytest-gpu-grouped.log
