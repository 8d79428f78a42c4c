#!/bin/bash
# session 8, batch d: the dual GEMM's K split: GPU tests, sanitizer, A/B (H100)
export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/00-smi.txt
timeout 240 python3 -m pytest -q -m gpu tests/test_dual_gemm_cluster.py tests/test_dual_gemm.py > $OUT/11-pytest-dual.log 2>&1
timeout 150 python3 .scratch/s8/dual_ks_ab.py > $OUT/12-dual-ks-ab.log 2>&1
( for tool in memcheck racecheck synccheck; do echo "== $tool"; timeout 100 compute-sanitizer --tool $tool --error-exitcode 9 python3 .scratch/s8/san_dual_ks.py 2>&1 | tail -6; echo "rc=${PIPESTATUS[0]}"; done ) > $OUT/13-san-dual-ksplit.log 2>&1
tail -4 $OUT/11-pytest-dual.log; cat $OUT/12-dual-ks-ab.log; grep -E "==|ERROR SUMMARY|RACECHECK|rc=|FAIL" $OUT/13-san-dual-ksplit.log
