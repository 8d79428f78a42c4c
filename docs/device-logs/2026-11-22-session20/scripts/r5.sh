#!/bin/bash
# GPU tests of the dual GEMM paths (the new variant rule and the tiles' stream-K default) and the profiler; memcheck on
# the tiles' stream-K over clusters of 1; the dual bench at the commit given as $1
export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
L=$OUT/14-gpu-tests-dual.log
timeout 300 python3 -m pytest -q -rs -m gpu tests/test_dual_gemm_tiles.py tests/test_dual_gemm.py tests/test_dual_gemm_cluster.py tests/test_profile_cluster_kernel.py > $L 2>&1
echo "rc $?" >> $L
tail -3 $L
S=$OUT/15-sanitizer-dual-tiles.log
echo "== memcheck tools/dual_gemm_check.py --small --kernel tiles" > $S
timeout 100 compute-sanitizer --tool memcheck --error-exitcode 9 python3 tools/dual_gemm_check.py --small --kernel tiles >> $S 2>&1; echo "rc $?" >> $S
grep -E "^rc|ERROR SUMMARY" $S
NVFP4RT_GIT_REVISION=$1 timeout 100 python3 tools/bench.py dual_gemm --results-dir $OUT > $OUT/16-bench-dual_gemm.log 2>&1; echo "rc $?" >> $OUT/16-bench-dual_gemm.log
tail -7 $OUT/16-bench-dual_gemm.log
timeout 100 python3 tools/profile_cluster_kernel.py gemm --runs 5 > $OUT/17-profile-gemm.log 2>&1; echo "rc $?" >> $OUT/17-profile-gemm.log
tail -4 $OUT/17-profile-gemm.log
