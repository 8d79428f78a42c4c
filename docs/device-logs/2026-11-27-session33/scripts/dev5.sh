# Session 33, device run 5 (H100) at e35a13e86060: the grouped GPU tests, compute-sanitizer memcheck on san33.py,
# probe5.py (old / TMA stores / committed, A/B on case 2), and the grouped bench.
export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c PYTHONUNBUFFERED=1 NVFP4RT_GIT_REVISION=e35a13e86060
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv > $OUT/14-device.log 2>&1
timeout 240 python3 -m pytest -q -rs -p no:cacheprovider -m gpu tests/test_grouped_gemm_cluster.py tests/test_grouped_gemm.py tests/test_streamk_head_check.py > $OUT/15-pytest-gpu.log 2>&1; echo "rc $?" >> $OUT/15-pytest-gpu.log
tail -n 2 $OUT/15-pytest-gpu.log
timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 python3 docs/device-logs/2026-11-27-session33/scripts/san33.py > $OUT/16-memcheck.log 2>&1; echo "rc $?" >> $OUT/16-memcheck.log
grep -E "ERROR SUMMARY|FAILS|rc " $OUT/16-memcheck.log
timeout 200 python3 docs/device-logs/2026-11-27-session33/scripts/probe5.py > $OUT/17-ab.log 2>&1; echo "rc $?" >> $OUT/17-ab.log
tail -n 7 $OUT/17-ab.log
timeout 250 python3 -m nvfp4rt.cli bench grouped_gemm --results-dir $OUT > $OUT/18-bench-grouped_gemm.log 2>&1; echo "rc $?" >> $OUT/18-bench-grouped_gemm.log
grep "\[bench\]   \|rc \|fp16" $OUT/18-bench-grouped_gemm.log
