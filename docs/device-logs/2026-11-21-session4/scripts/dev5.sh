#!/bin/bash
export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/env.txt
timeout 240 python3 -m pytest -q -p no:cacheprovider -rs tests/test_dual_gemm_cluster.py tests/test_dual_gemm.py tests/test_lab.py tests/test_bench.py 2>&1 | tee $OUT/08-pytest-dual-lab-bench.log | tail -4
for tool in memcheck racecheck synccheck; do
  timeout 150 compute-sanitizer --tool $tool --error-exitcode 9 python3 tools/dual_gemm_check.py --small --kernel cluster > $OUT/09-san-$tool.log 2>&1; echo "$tool rc=$?" | tee -a $OUT/09-san-$tool.log
done
timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 python3 tools/dual_gemm_check.py --small --kernel cluster --units-per-cta 1 > $OUT/09-san-memcheck-split.log 2>&1; echo "memcheck split rc=$?" | tee -a $OUT/09-san-memcheck-split.log
tail -3 $OUT/09-san-*.log
NVFP4RT_GIT_REVISION=$REV timeout 200 python3 tools/bench.py dual_gemm 2>&1 | tee $OUT/10-bench-dual.log | tail -12
cp bench/results/dual_gemm-*h200*.json $OUT/ 2>/dev/null
ls $OUT
