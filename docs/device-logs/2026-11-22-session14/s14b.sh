#!/bin/bash
export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/00-device.txt
timeout 330 python3 -m pytest -q -m gpu tests/test_gemm_tail_helpers.py tests/test_gemm_wgmma_cluster.py tests/test_gemm.py > $OUT/05-gpu-tests.log 2>&1
tail -3 $OUT/05-gpu-tests.log
for tool in memcheck racecheck synccheck; do
  timeout 100 compute-sanitizer --tool $tool --error-exitcode 9 python3 .scratch/s14/san_help.py > $OUT/06-san-$tool.log 2>&1
  echo "$tool rc=$?"; tail -2 $OUT/06-san-$tool.log
done
timeout 120 python3 .scratch/s14/ab2.py > $OUT/07-help-ab.log 2>&1; cat $OUT/07-help-ab.log | cut -c1-200
