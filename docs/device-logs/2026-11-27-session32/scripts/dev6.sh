# Session 32, device run 6: probe5.py on the loop sets with per-loop A-fragment registers ("r") and dead accumulators
# ("d"); the SASS of G2dr, G3dr and Q4dr (offline-assembled cubins in .scratch/s32/).
export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c PYTHONUNBUFFERED=1
timeout 400 python3 docs/device-logs/2026-11-27-session32/scripts/probe5.py G2 G2d G2r G2dr G3dr Q4dr > $OUT/12-probe5-rename.log 2>&1; echo "rc $?" >> $OUT/12-probe5-rename.log
mkdir -p /tmp/sass && for f in G2dr G3dr Q4dr; do cuobjdump -sass .scratch/s32/$f.cubin > /tmp/sass/$f.sass 2>&1; done
tar czf $OUT/13-sass.tgz -C /tmp sass
cat $OUT/12-probe5-rename.log | grep -v "bits equal"
