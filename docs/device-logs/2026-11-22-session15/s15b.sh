#!/bin/bash
export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/00-device.txt
timeout 420 python3 -m pytest -q -m gpu tests/test_grouped_gemm_mtiles.py tests/test_grouped_gemm_cluster.py tests/test_grouped_gemm.py tests/test_gemm_wgmma_cluster.py tests/test_gemm.py > $OUT/06-gpu-tests.log 2>&1
tail -5 $OUT/06-gpu-tests.log
for tool in memcheck racecheck synccheck; do
  timeout 50 compute-sanitizer --tool $tool --error-exitcode 9 python3 .scratch/s15/san_mtiles.py > $OUT/07-san-$tool.log 2>&1
  echo "$tool rc=$?"; tail -2 $OUT/07-san-$tool.log
done
