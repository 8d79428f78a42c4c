#!/bin/bash
# GPU tests of every kernel the A_UNIT change reaches, the generators' checks, compute-sanitizer on the GEMM
export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
L=$OUT/06-gpu-tests.log
git log --oneline -1 > $L 2>&1 || echo "(no git log)" > $L
python3 tools/gen_dual_gemm_cluster_ptx.py --check >> $L 2>&1; python3 tools/gen_grouped_gemm_cluster_ptx.py --check >> $L 2>&1
timeout 380 python3 -m pytest -q -rs -m gpu tests/test_gemm_wgmma_cluster.py tests/test_dual_gemm_tiles.py tests/test_dual_gemm_cluster.py \
  tests/test_grouped_gemm_cluster.py tests/test_grouped_gemm_mtiles.py tests/test_gemm.py tests/test_dual_gemm.py tests/test_grouped_gemm.py \
  tests/test_streamk_head_check.py tests/test_gemm_tail_helpers.py tests/test_profile_cluster_kernel.py >> $L 2>&1
echo "rc $?" >> $L
S=$OUT/07-sanitizer-gemm.log
: > $S
for tool in memcheck synccheck; do
  echo "== $tool tools/gemm_check.py --small" >> $S
  timeout 90 compute-sanitizer --tool $tool --error-exitcode 9 python3 tools/gemm_check.py --small >> $S 2>&1; echo "rc $?" >> $S
done
grep -E "passed|failed|up to date|stale|^rc|ERROR SUMMARY|FAIL" $L $S | tail -20
