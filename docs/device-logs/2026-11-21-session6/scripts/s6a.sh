export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
nvidia-smi -L > $OUT/00-smi.txt 2>&1; cat $OUT/00-smi.txt
timeout 120 python3 .scratch/dec_ab.py > $OUT/01-decode-ab.log 2>&1; echo "ab rc=$?"; cat $OUT/01-decode-ab.log
timeout 150 python3 .scratch/time_grouped.py > $OUT/02-time-grouped.log 2>&1; echo "tg rc=$?"; cat $OUT/02-time-grouped.log
timeout 200 python3 -m pytest -q -m gpu -x tests/test_decode_a16.py tests/test_grouped_gemm_cluster.py tests/test_grouped_gemm.py tests/test_gemm_wgmma_cluster.py tests/test_dual_gemm_cluster.py > $OUT/03-pytest-a16-consumers.log 2>&1; echo "pytest rc=$?"; tail -3 $OUT/03-pytest-a16-consumers.log
for tool in memcheck racecheck; do
  timeout 40 compute-sanitizer --tool $tool --error-exitcode 9 python3 tools/decode_a16_check.py --no-time --small > $OUT/04-san-decode-$tool.log 2>&1; echo "$tool rc=$?"; tail -2 $OUT/04-san-decode-$tool.log
done
timeout 60 compute-sanitizer --tool memcheck --error-exitcode 9 python3 tools/grouped_gemm_check.py --small --kernel cluster > $OUT/05-san-grouped-memcheck.log 2>&1; echo "grouped memcheck rc=$?"; tail -2 $OUT/05-san-grouped-memcheck.log
