# Session 31, device run 5 (asked for an H100): the floor kernel's timeline and pipe occupancy, the grouped bench
# (run 3's JSON did not come back), and the GPU tests of the bench, the lab and the tensor floor.
export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c PYTHONUNBUFFERED=1 NVFP4RT_GIT_REVISION=1b321a58bbd9
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv > $OUT/13-device.log 2>&1
timeout 200 python3 docs/device-logs/2026-11-27-session31/scripts/floor_timeline.py > $OUT/14-floor-timeline.log 2>&1; echo "rc $?" >> $OUT/14-floor-timeline.log
cat $OUT/13-device.log $OUT/14-floor-timeline.log
timeout 280 python3 -m nvfp4rt.cli bench grouped_gemm --results-dir $OUT > $OUT/15-bench-grouped_gemm.log 2>&1; echo "rc $?" >> $OUT/15-bench-grouped_gemm.log
grep "\[bench\]   \|rc \|fp16" $OUT/15-bench-grouped_gemm.log
timeout 280 python3 -m pytest -q -rs -p no:cacheprovider tests/test_tensor_floor.py tests/test_bench.py tests/test_lab.py > $OUT/16-pytest.log 2>&1; echo "rc $?" >> $OUT/16-pytest.log
tail -n 3 $OUT/16-pytest.log
