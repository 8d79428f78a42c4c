#!/bin/bash
# session 8, batch a: K-split GEMM on the device: tests, sanitizer, A/B
export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/00-smi.txt
timeout 150 python3 -m pytest -q -m gpu tests/test_gemm_wgmma_cluster.py -k "ksplit or default_plans or moved" -x > $OUT/01-pytest-ksplit.log 2>&1
timeout 100 python3 .scratch/s8/ks_ab.py > $OUT/02-ks-ab.log 2>&1
( for tool in memcheck racecheck synccheck; do echo "== $tool"; timeout 100 compute-sanitizer --tool $tool --error-exitcode 9 python3 .scratch/s8/san_ks.py 2>&1 | tail -8; echo "rc=${PIPESTATUS[0]}"; done ) > $OUT/03-san-ksplit.log 2>&1
tail -3 $OUT/01-pytest-ksplit.log; cat $OUT/02-ks-ab.log; grep -E "==|ERROR SUMMARY|rc=|FAIL" $OUT/03-san-ksplit.log
