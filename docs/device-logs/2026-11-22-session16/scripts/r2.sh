#!/bin/bash
export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
timeout 200 python3 .scratch/s16/prof.py > $OUT/02-api-profile.log 2>&1
grep "====" $OUT/02-api-profile.log
timeout 300 python3 -m pytest -q -m gpu tests/test_gemv.py tests/test_gemv_tma.py tests/test_bench.py tests/test_gemm_wgmma_cluster.py -k "whole or default or gemv or bw_read or bench" > $OUT/03-gpu-tests.log 2>&1
tail -5 $OUT/03-gpu-tests.log
