# Session 32, device run 10: probe7.py (the template's epilogue without its copy-out, or without staging and copy-out).
export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c PYTHONUNBUFFERED=1
timeout 400 python3 docs/device-logs/2026-11-27-session32/scripts/probe7.py > $OUT/19-epilogue-probe.log 2>&1; echo "rc $?" >> $OUT/19-epilogue-probe.log
cat $OUT/19-epilogue-probe.log
