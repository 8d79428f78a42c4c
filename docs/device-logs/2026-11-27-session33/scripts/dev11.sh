# Session 33, device run 11 (H100) at 9169dc24d421: the grouped GPU tests, compute-sanitizer memcheck, racecheck and synccheck on
# san33.py, probe7.py (old / 128-row boxes / this build, A/B on case 2).
export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c PYTHONUNBUFFERED=1 NVFP4RT_GIT_REVISION=9169dc24d421
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv > $OUT/33-device.log 2>&1
timeout 240 python3 -m pytest -q -rs -p no:cacheprovider -m gpu tests/test_grouped_gemm_cluster.py tests/test_grouped_gemm.py tests/test_streamk_head_check.py tests/test_profile_cluster_kernel.py > $OUT/34-pytest-gpu.log 2>&1; echo "rc $?" >> $OUT/34-pytest-gpu.log
tail -n 2 $OUT/34-pytest-gpu.log
for tool in memcheck racecheck synccheck; do
  echo "== $tool" >> $OUT/35-sanitizer.log
  timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 python3 docs/device-logs/2026-11-27-session33/scripts/san33.py >> $OUT/35-sanitizer.log 2>&1; echo "rc $?" >> $OUT/35-sanitizer.log
done
grep -E "^== |ERROR SUMMARY|RACECHECK SUMMARY|FAILS|rc " $OUT/35-sanitizer.log
timeout 200 python3 docs/device-logs/2026-11-27-session33/scripts/probe7.py > $OUT/36-ab.log 2>&1; echo "rc $?" >> $OUT/36-ab.log
tail -n 7 $OUT/36-ab.log
