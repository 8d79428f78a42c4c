#!/bin/bash
export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
for tool in memcheck racecheck synccheck; do
  timeout 90 compute-sanitizer --tool $tool --error-exitcode 9 python3 .scratch/san_whole.py > $OUT/12-san-$tool.log 2>&1; echo "rc=$?" >> $OUT/12-san-$tool.log
  tail -2 $OUT/12-san-$tool.log
done
timeout 200 python3 -m pytest -q tests/test_grouped_gemm.py tests/test_grouped_gemm_cluster.py > $OUT/13-pytest-grouped.log 2>&1; echo "rc=$?" >> $OUT/13-pytest-grouped.log
tail -2 $OUT/13-pytest-grouped.log
NVFP4RT_GIT_REVISION=$(cat .scratch/rev) timeout 200 python3 tools/bench.py grouped_gemm --results-dir $OUT > $OUT/14-bench-grouped.log 2>&1; echo "rc=$?" >> $OUT/14-bench-grouped.log
tail -12 $OUT/14-bench-grouped.log
