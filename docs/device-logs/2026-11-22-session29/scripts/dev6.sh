export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
REV=6e95b9f18aa4
start=$(date +%s)
NVFP4RT_GIT_REVISION=$REV timeout 300 python3 tools/bench.py grouped_gemm --results-dir $OUT > $OUT/10-bench-grouped_gemm.log 2>&1; echo "grouped rc=$? $(( $(date +%s) - start ))s"
tail -6 $OUT/10-bench-grouped_gemm.log
timeout 200 python3 .scratch/s29/exp5.py > $OUT/11-l2-promotion.log 2>&1; echo "rc $?" >> $OUT/11-l2-promotion.log
tail -16 $OUT/11-l2-promotion.log
