export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
timeout 420 python3 -m pytest -q -m gpu tests/test_gemm_wgmma_cluster.py tests/test_decode_a16.py tests/test_module.py tests/test_dual_gemm_cluster.py tests/test_grouped_gemm_cluster.py tests/test_gemm.py tests/test_dual_gemm.py tests/test_grouped_gemm.py tests/test_streamk_head_check.py > $OUT/10-gpu-tests.log 2>&1; echo "pytest rc $?" >> $OUT/10-gpu-tests.log
tail -3 $OUT/10-gpu-tests.log
for tool in memcheck racecheck synccheck; do
  timeout 200 compute-sanitizer --tool $tool --error-exitcode 9 python3 .scratch/s13/san_ks.py > $OUT/11-san-$tool.log 2>&1; echo "$tool rc $?" >> $OUT/11-san-$tool.log
  tail -2 $OUT/11-san-$tool.log
done
timeout 200 python3 .scratch/s13/decode_ab.py > $OUT/12-decode-ab.log 2>&1; echo "rc $?" >> $OUT/12-decode-ab.log
cat $OUT/12-decode-ab.log
