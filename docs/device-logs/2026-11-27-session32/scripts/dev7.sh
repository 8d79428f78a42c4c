# Session 32, device run 7: probe5.py on G11 (two N = 128 loop copies), and the "split" builds whose N > 128 loops
# issue m64n128 + m64n(N-128) per k16 step (G2x {128, 256}, G3x {64, 128, 256}, Q4x {64, 128, 192, 256}, G8x all
# eight), at m = 128, 256 and 192; SASS of G2x and Q4x.
export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c PYTHONUNBUFFERED=1
M=128 timeout 200 python3 docs/device-logs/2026-11-27-session32/scripts/probe5.py G1 G11 G2x G3x Q4x G8x > $OUT/14-probe5-split.log 2>&1; echo "rc $?" >> $OUT/14-probe5-split.log
M=256 timeout 200 python3 docs/device-logs/2026-11-27-session32/scripts/probe5.py G2x G3x Q4x G8x >> $OUT/14-probe5-split.log 2>&1; echo "rc $?" >> $OUT/14-probe5-split.log
M=192 timeout 200 python3 docs/device-logs/2026-11-27-session32/scripts/probe5.py Q4x G8x >> $OUT/14-probe5-split.log 2>&1; echo "rc $?" >> $OUT/14-probe5-split.log
mkdir -p /tmp/sass && for f in G2x Q4x; do cuobjdump -sass .scratch/s32/$f.cubin > /tmp/sass/$f.sass 2>&1; done
tar czf $OUT/15-sass.tgz -C /tmp sass
grep -v "bits equal to G8" $OUT/14-probe5-split.log
