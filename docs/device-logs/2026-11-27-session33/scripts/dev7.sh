# Session 33, device run 7 (H100) at 874cc8a927c4: the grouped GPU tests, compute-sanitizer memcheck, racecheck and synccheck on
# san33.py, probe7.py (old / 128-row boxes / 64-row boxes in turn, A/B on case 2), and the grouped bench.
export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c PYTHONUNBUFFERED=1 NVFP4RT_GIT_REVISION=874cc8a927c4
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv > $OUT/21-device.log 2>&1
timeout 240 python3 -m pytest -q -rs -p no:cacheprovider -m gpu tests/test_grouped_gemm_cluster.py tests/test_grouped_gemm.py tests/test_streamk_head_check.py tests/test_profile_cluster_kernel.py > $OUT/22-pytest-gpu.log 2>&1; echo "rc $?" >> $OUT/22-pytest-gpu.log
tail -n 2 $OUT/22-pytest-gpu.log
for tool in memcheck racecheck synccheck; do
  echo "== $tool" >> $OUT/23-sanitizer.log
  timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 python3 docs/device-logs/2026-11-27-session33/scripts/san33.py >> $OUT/23-sanitizer.log 2>&1; echo "rc $?" >> $OUT/23-sanitizer.log
done
grep -E "^== |ERROR SUMMARY|RACECHECK SUMMARY|FAILS|rc " $OUT/23-sanitizer.log
timeout 200 python3 docs/device-logs/2026-11-27-session33/scripts/probe7.py > $OUT/24-ab.log 2>&1; echo "rc $?" >> $OUT/24-ab.log
tail -n 7 $OUT/24-ab.log
timeout 250 python3 -m nvfp4rt.cli bench grouped_gemm --results-dir $OUT > $OUT/25-bench-grouped_gemm.log 2>&1; echo "rc $?" >> $OUT/25-bench-grouped_gemm.log
grep "\[bench\]   \|rc \|fp16" $OUT/25-bench-grouped_gemm.log
