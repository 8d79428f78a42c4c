# Session 34, device run 7 (H100) at d6c02ea51e9d: the grouped GPU tests, compute-sanitizer memcheck, racecheck and synccheck
# on san34.py.
export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv > $OUT/12-device.log 2>&1
timeout 300 python3 -m pytest -q -rs -p no:cacheprovider -m gpu tests/test_grouped_gemm_cluster.py tests/test_grouped_gemm.py tests/test_grouped_gemm_mtiles.py tests/test_streamk_head_check.py tests/test_profile_cluster_kernel.py > $OUT/13-pytest-gpu.log 2>&1; echo "rc $?" >> $OUT/13-pytest-gpu.log
tail -n 2 $OUT/13-pytest-gpu.log
for tool in memcheck racecheck synccheck; do
  echo "== $tool" >> $OUT/14-sanitizer.log
  timeout 90 compute-sanitizer --tool $tool --error-exitcode 9 python3 docs/device-logs/2026-11-27-session34/scripts/san34.py >> $OUT/14-sanitizer.log 2>&1; echo "rc $?" >> $OUT/14-sanitizer.log
done
grep -E "^== |ERROR SUMMARY|RACECHECK SUMMARY|FAILS|rc " $OUT/14-sanitizer.log
