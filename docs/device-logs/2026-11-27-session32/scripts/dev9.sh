# Session 32, device run 9: probe6.py (the dual's whole call against its GEMM launch alone and its decode alone).
export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c PYTHONUNBUFFERED=1
timeout 300 python3 docs/device-logs/2026-11-27-session32/scripts/probe6.py > $OUT/18-dual-call-parts.log 2>&1; echo "rc $?" >> $OUT/18-dual-call-parts.log
cat $OUT/18-dual-call-parts.log
