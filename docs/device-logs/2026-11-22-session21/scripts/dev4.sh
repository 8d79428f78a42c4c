export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
timeout 250 python3 .scratch/s21/exp9.py > $OUT/12-dual-rule.log 2>&1
echo "rc=$?" >> $OUT/12-dual-rule.log
timeout 240 python3 -m pytest -q -rs -m gpu tests/test_dual_gemm_tiles.py tests/test_dual_gemm.py > $OUT/13-gpu-tests.log 2>&1
echo "rc=$?" >> $OUT/13-gpu-tests.log
timeout 90 compute-sanitizer --tool memcheck --error-exitcode 9 python3 tools/dual_gemm_check.py --small --kernel tiles > $OUT/14-memcheck.log 2>&1
echo "rc=$?" >> $OUT/14-memcheck.log
timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 python3 .scratch/s21/san2.py > $OUT/15-memcheck-aligned.log 2>&1
echo "rc=$?" >> $OUT/15-memcheck-aligned.log
tail -n 3 $OUT/13-gpu-tests.log $OUT/14-memcheck.log $OUT/15-memcheck-aligned.log; grep "whole / kernel\|FAIL" $OUT/12-dual-rule.log | cut -c1-110
