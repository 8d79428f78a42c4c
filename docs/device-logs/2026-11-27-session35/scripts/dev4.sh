# Session 35, device run 4 (H100) at 286ed3d: GPU tests of the grouped plans and the cluster GEMM, probe3.py, and the
# grouped bench.
export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c PYTHONUNBUFFERED=1 NVFP4RT_GIT_REVISION=286ed3d
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv > $OUT/08-device.log 2>&1
timeout 240 python3 -m pytest -q -m gpu tests/test_grouped_gemm_mtiles.py tests/test_grouped_gemm.py tests/test_streamk_head_check.py > $OUT/09-tests.log 2>&1; echo "rc $?" >> $OUT/09-tests.log
tail -4 $OUT/09-tests.log
timeout 150 python3 docs/device-logs/2026-11-27-session35/scripts/probe3.py > $OUT/10-probe3.log 2>&1; echo "rc $?" >> $OUT/10-probe3.log
cat $OUT/10-probe3.log
mkdir -p $OUT/bench
timeout 170 python3 -m nvfp4rt.cli bench grouped_gemm --results-dir $OUT/bench > $OUT/11-bench-grouped.log 2>&1; echo "rc $?" >> $OUT/11-bench-grouped.log
tail -30 $OUT/11-bench-grouped.log
