# Session 31, device run 10: the floor kernel's input stream against a plain read of the same bytes.
export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c PYTHONUNBUFFERED=1
timeout 300 python3 docs/device-logs/2026-11-27-session31/scripts/stream_check.py > $OUT/32-stream-check.log 2>&1; echo "rc $?" >> $OUT/32-stream-check.log
cat $OUT/32-stream-check.log
