# Session 36, device run 5 (H100): the streamed decode with the L2 prefetch of every group's A and sfa after its
# first round: the stream-decode GPU tests, then probe4.py again (its variants now carry the prefetch).
export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv > $OUT/14-device.log 2>&1
timeout 200 python3 -m pytest -q -x -m gpu tests/test_stream_decode.py > $OUT/15-tests.log 2>&1; echo "rc $?" >> $OUT/15-tests.log
tail -3 $OUT/15-tests.log
timeout 240 python3 docs/device-logs/2026-11-27-session36/scripts/probe4.py > $OUT/16-probe4-prefetch.log 2>&1; echo "rc $?" >> $OUT/16-probe4-prefetch.log
cat $OUT/16-probe4-prefetch.log
