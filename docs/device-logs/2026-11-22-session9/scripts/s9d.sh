#!/bin/bash
# session 9, batch d (H100): GPU tests of what changed, compute-sanitizer on the K split's new rings and the grouped schedule
export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
timeout 420 python3 -m pytest -q -m gpu -p no:cacheprovider tests/test_module.py tests/test_gemm_wgmma_cluster.py \
    tests/test_dual_gemm_cluster.py tests/test_grouped_gemm_cluster.py tests/test_grouped_gemm.py tests/test_gemm.py \
    tests/test_profile_cluster_kernel.py > $OUT/10-pytest-gpu.log 2>&1
echo "rc=$?" >> $OUT/10-pytest-gpu.log
for tool in memcheck racecheck synccheck; do
  echo "== $tool: K-split GEMM" >> $OUT/11-sanitizer.log
  timeout 100 compute-sanitizer --tool $tool --error-exitcode 9 python3 .scratch/san_ks.py >> $OUT/11-sanitizer.log 2>&1
  echo "rc=${PIPESTATUS[0]}" >> $OUT/11-sanitizer.log
done
echo "== memcheck: grouped cluster kernel, small problems" >> $OUT/11-sanitizer.log
timeout 100 compute-sanitizer --tool memcheck --error-exitcode 9 python3 tools/grouped_gemm_check.py --small --kernel cluster >> $OUT/11-sanitizer.log 2>&1
echo "rc=$?" >> $OUT/11-sanitizer.log
tail -5 $OUT/10-pytest-gpu.log; grep -E "^==|rc=|ERROR SUMMARY|FAIL" $OUT/11-sanitizer.log
