export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
timeout 120 python3 .scratch/san_ks.py > $OUT/05-smoke.log 2>&1; echo "smoke rc $?" >> $OUT/05-smoke.log
tail -3 $OUT/05-smoke.log
if grep -q "smoke rc 0" $OUT/05-smoke.log; then
  timeout 240 python3 .scratch/s13/push_ab.py > $OUT/06-push-ab.log 2>&1; echo "ab rc $?" >> $OUT/06-push-ab.log
  for tool in memcheck racecheck synccheck; do
    timeout 200 compute-sanitizer --tool $tool --error-exitcode 9 python3 .scratch/san_ks.py > $OUT/07-san-$tool.log 2>&1; echo "$tool rc $?" >> $OUT/07-san-$tool.log
    tail -2 $OUT/07-san-$tool.log
  done
  timeout 400 python3 -m pytest -q -m gpu tests/test_gemm_wgmma_cluster.py > $OUT/08-gpu-tests.log 2>&1; echo "pytest rc $?" >> $OUT/08-gpu-tests.log
  tail -3 $OUT/08-gpu-tests.log
fi
cat $OUT/06-push-ab.log
