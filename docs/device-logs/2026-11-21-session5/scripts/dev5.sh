export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
timeout 200 python3 tools/grouped_gemm_check.py --kernel cluster > $OUT/13-check-cluster-6165c05.log 2>&1
tail -8 $OUT/13-check-cluster-6165c05.log
NVFP4RT_GIT_REVISION=6165c05 timeout 350 python3 tools/bench.py grouped_gemm --results-dir $OUT > $OUT/14-bench-grouped-6165c05.log 2>&1
tail -12 $OUT/14-bench-grouped-6165c05.log
