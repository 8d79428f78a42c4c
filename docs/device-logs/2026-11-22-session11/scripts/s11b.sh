#!/bin/bash
export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
timeout 150 python3 .scratch/whole_ab.py > $OUT/10-whole-ab.log 2>&1; echo "rc=$?" >> $OUT/10-whole-ab.log
cat $OUT/10-whole-ab.log
timeout 250 python3 -m pytest -q tests/test_grouped_gemm.py tests/test_grouped_gemm_cluster.py > $OUT/11-pytest-grouped.log 2>&1; echo "rc=$?" >> $OUT/11-pytest-grouped.log
tail -3 $OUT/11-pytest-grouped.log
