# Session 33, device run 2 (H100): the grouped GPU tests, compute-sanitizer memcheck on the grouped cluster kernel's two
# epilogues and probe2.py (TMA stores against the copy-out on cases 2 and 1), at a688d690153f.
export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c PYTHONUNBUFFERED=1 NVFP4RT_GIT_REVISION=a688d690153f
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv > $OUT/02-device.log 2>&1
timeout 300 python3 -m pytest -q -rs -p no:cacheprovider -m gpu tests/test_grouped_gemm_cluster.py tests/test_grouped_gemm.py tests/test_streamk_head_check.py tests/test_profile_cluster_kernel.py > $OUT/03-pytest-gpu.log 2>&1; echo "rc $?" >> $OUT/03-pytest-gpu.log
tail -n 3 $OUT/03-pytest-gpu.log
for tool in memcheck; do
  echo "== $tool" >> $OUT/04-sanitizer.log
  timeout 200 compute-sanitizer --tool $tool --error-exitcode 9 python3 docs/device-logs/2026-11-27-session33/scripts/san33.py >> $OUT/04-sanitizer.log 2>&1; echo "rc $?" >> $OUT/04-sanitizer.log
done
grep -E "^== |ERROR SUMMARY|RACECHECK SUMMARY|FAILS|rc " $OUT/04-sanitizer.log
timeout 300 python3 docs/device-logs/2026-11-27-session33/scripts/probe2.py > $OUT/05-tma-store.log 2>&1; echo "rc $?" >> $OUT/05-tma-store.log
tail -n 12 $OUT/05-tma-store.log
