# Session 33, device run 9 (H100): probe9.py (small loops in %acc64..127), and the HGMMA lines of both builds' SASS.
export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv > $OUT/28-device.log 2>&1
for b in now hi; do
  echo "== $b" >> $OUT/29-hgmma.log
  cuobjdump -sass .scratch/s33/$b.cubin | grep -E "HGMMA" | sed -E 's/^ *\/\*[0-9a-f]+\*\/ *//; s/ *\/\*.*$//' | awk '{print $1, $2, $3, $4}' | sort | uniq -c | sort -k2 >> $OUT/29-hgmma.log 2>&1
done
head -60 $OUT/29-hgmma.log
timeout 300 python3 docs/device-logs/2026-11-27-session33/scripts/probe9.py > $OUT/30-acc-hi.log 2>&1; echo "rc $?" >> $OUT/30-acc-hi.log
tail -n 8 $OUT/30-acc-hi.log
