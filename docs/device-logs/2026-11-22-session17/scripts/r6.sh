#!/bin/bash
export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
timeout 300 python3 -m pytest -q -rs -m gpu tests/test_grouped_gemm.py tests/test_grouped_gemm_cluster.py tests/test_grouped_gemm_mtiles.py > $OUT/08-grouped-gpu-tests.log 2>&1
echo "rc $?" >> $OUT/08-grouped-gpu-tests.log
tail -4 $OUT/08-grouped-gpu-tests.log
NVFP4RT_GIT_REVISION=$(cat .scratch/s17/rev) timeout 250 python3 tools/bench.py grouped_gemm --results-dir $OUT > $OUT/09-bench-grouped.log 2>&1
grep "\[bench\]  \|ceilings\] read\|fp16 " $OUT/09-bench-grouped.log | cut -c1-330
