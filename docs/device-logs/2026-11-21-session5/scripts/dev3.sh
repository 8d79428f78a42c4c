export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
timeout 150 python3 -m pytest -q -m gpu tests/test_grouped_gemm_cluster.py tests/test_decode_a16.py > $OUT/06-pytest.log 2>&1
tail -3 $OUT/06-pytest.log
timeout 120 python3 .scratch/calib2.py > $OUT/07-calib2.log 2>&1
cat $OUT/07-calib2.log
timeout 100 python3 .scratch/time_grouped.py > $OUT/08-time.log 2>&1
cat $OUT/08-time.log
for tool in memcheck racecheck synccheck; do
  timeout 150 compute-sanitizer --tool $tool --error-exitcode 9 python3 .scratch/san_grouped.py > $OUT/09-san-$tool.log 2>&1; echo "$tool rc=$?"; tail -2 $OUT/09-san-$tool.log
done
