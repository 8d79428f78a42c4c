#!/bin/bash
export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
timeout 150 python3 .scratch/pairs_ab.py > $OUT/09-pairs-ab.log 2>&1; echo "rc=$?" >> $OUT/09-pairs-ab.log
cat $OUT/09-pairs-ab.log
timeout 200 python3 -m pytest -q -x tests/test_gemm_wgmma_cluster.py tests/test_gemm.py tests/test_module.py > $OUT/10-pytest-gpu.log 2>&1; echo "rc=$?" >> $OUT/10-pytest-gpu.log
tail -3 $OUT/10-pytest-gpu.log
for tool in memcheck racecheck; do
  timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 python3 .scratch/kss_check.py small > $OUT/11-san-$tool.log 2>&1; echo "rc=$?" >> $OUT/11-san-$tool.log
  tail -2 $OUT/11-san-$tool.log
done
NVFP4RT_GIT_REVISION=c0f7b1ab548b7c3553ea68f39d47c046d83a5503 timeout 120 python3 tools/bench.py gemm --results-dir $OUT > $OUT/12-bench.log 2>&1; echo "rc=$?" >> $OUT/12-bench.log
tail -8 $OUT/12-bench.log
