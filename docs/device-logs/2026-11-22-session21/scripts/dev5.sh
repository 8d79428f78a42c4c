export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
NVFP4RT_GIT_REVISION=$(cat .scratch/s21/rev) timeout 300 python3 tools/bench.py dual_gemm --results-dir $OUT > $OUT/16-bench-dual_gemm.log 2>&1
echo "rc=$?" >> $OUT/16-bench-dual_gemm.log
timeout 250 python3 -m pytest -q -rs -m gpu tests/test_dual_gemm_cluster.py tests/test_dual_gemm_tiles.py > $OUT/17-gpu-tests-dual.log 2>&1
echo "rc=$?" >> $OUT/17-gpu-tests-dual.log
tail -n 25 $OUT/16-bench-dual_gemm.log; tail -n 3 $OUT/17-gpu-tests-dual.log
