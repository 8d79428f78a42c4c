#!/bin/bash
# session 8, batch e: bench of the three GEMM ops at the dual K-split commit, dual profile (H100)
export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/00-smi.txt
for op in gemm dual_gemm grouped_gemm; do NVFP4RT_GIT_REVISION=$REV python3 tools/bench.py $op --results-dir $OUT; done > $OUT/14-bench.log 2>&1
timeout 120 python3 tools/profile_cluster_kernel.py dual_gemm > $OUT/15-profile-dual.log 2>&1
grep -E "^\[bench\]|ceilings" $OUT/14-bench.log; cat $OUT/15-profile-dual.log
