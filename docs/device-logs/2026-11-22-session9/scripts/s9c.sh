#!/bin/bash
# session 9, batch c (H100): bench gemm and grouped_gemm at the committed revision; grouped clusters of 4
export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c REV=b68f9e2
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/00-smi.txt
NVFP4RT_GIT_REVISION=$REV python3 tools/bench.py gemm --results-dir $OUT > $OUT/08-bench.log 2>&1
NVFP4RT_GIT_REVISION=$REV python3 tools/bench.py grouped_gemm --results-dir $OUT >> $OUT/08-bench.log 2>&1
timeout 120 python3 .scratch/grp_cl4.py > $OUT/09-grouped-cl4.log 2>&1; echo "rc=$?" >> $OUT/09-grouped-cl4.log
grep "\[bench\]\|wrote\|ceilings" $OUT/08-bench.log; cat $OUT/09-grouped-cl4.log
