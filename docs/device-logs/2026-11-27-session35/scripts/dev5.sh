# Session 35, device run 5 (H100): probe4.py (the cost model's constants; the even runs' path), after the m-tile GPU
# tests on the even-run change.
export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv > $OUT/12-device.log 2>&1
timeout 150 python3 -m pytest -q -x -m gpu tests/test_grouped_gemm_mtiles.py > $OUT/13-tests-mtiles.log 2>&1; echo "rc $?" >> $OUT/13-tests-mtiles.log
tail -3 $OUT/13-tests-mtiles.log
timeout 300 python3 docs/device-logs/2026-11-27-session35/scripts/probe4.py > $OUT/14-probe4.log 2>&1; echo "rc $?" >> $OUT/14-probe4.log
grep -v "tile classes" $OUT/14-probe4.log
