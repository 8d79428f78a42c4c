# Session 35, device run 6 (H100) at f39c730: compute-sanitizer on san35.py, the grouped bench, the GPU tests of the
# grouped plans and of the cluster GEMM (whose template changed).
export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c PYTHONUNBUFFERED=1 NVFP4RT_GIT_REVISION=f39c730
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv > $OUT/15-device.log 2>&1
for tool in memcheck racecheck synccheck; do
  echo "== $tool" >> $OUT/16-sanitizer.log
  timeout 150 compute-sanitizer --tool $tool --error-exitcode 9 python3 docs/device-logs/2026-11-27-session35/scripts/san35.py >> $OUT/16-sanitizer.log 2>&1; echo "rc $?" >> $OUT/16-sanitizer.log
done
grep -E "==|rc |SUMMARY|failures" $OUT/16-sanitizer.log
mkdir -p $OUT/bench
timeout 170 python3 -m nvfp4rt.cli bench grouped_gemm --results-dir $OUT/bench > $OUT/17-bench-grouped.log 2>&1; echo "rc $?" >> $OUT/17-bench-grouped.log
tail -9 $OUT/17-bench-grouped.log
timeout 200 python3 -m pytest -q -m gpu tests/test_grouped_gemm_mtiles.py tests/test_grouped_gemm.py tests/test_streamk_head_check.py tests/test_gemm_wgmma_cluster.py > $OUT/18-tests.log 2>&1; echo "rc $?" >> $OUT/18-tests.log
tail -4 $OUT/18-tests.log
