#!/bin/bash
# session 9, batch b (H100): K-split ring depths, grouped schedule costs, the grouped bench as it stands
export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/00-smi.txt
timeout 200 python3 .scratch/ring_ab.py > $OUT/03-ring-ab-h100.log 2>&1; echo "rc=$?" >> $OUT/03-ring-ab-h100.log
timeout 200 python3 .scratch/grp_cost.py > $OUT/04-grouped-cost-h100.log 2>&1; echo "rc=$?" >> $OUT/04-grouped-cost-h100.log
timeout 150 python3 tools/bench.py grouped_gemm --results-dir $OUT/res > $OUT/05-bench-grouped-uncommitted.log 2>&1
echo "rc=$?" >> $OUT/05-bench-grouped-uncommitted.log
cat $OUT/03-ring-ab-h100.log $OUT/04-grouped-cost-h100.log; tail -15 $OUT/05-bench-grouped-uncommitted.log
