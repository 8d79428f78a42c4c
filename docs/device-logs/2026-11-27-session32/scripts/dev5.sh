# Session 32, device run 5: probe5.py G1 G1L (and the SASS of G1L).
export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c PYTHONUNBUFFERED=1
timeout 300 python3 docs/device-logs/2026-11-27-session32/scripts/probe5.py G1 G1L > $OUT/10-probe5.log 2>&1; echo "rc $?" >> $OUT/10-probe5.log
cuobjdump -sass .scratch/s32/G1L.cubin > /tmp/G1L.sass 2>&1; gzip -c /tmp/G1L.sass > $OUT/11-G1L.sass.gz
cat $OUT/10-probe5.log
