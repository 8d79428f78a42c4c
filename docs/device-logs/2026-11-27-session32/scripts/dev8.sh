# Session 32, device run 8: probe5.py on the "pinned fragment" builds (the small loops' A fragments live through the
# whole consumer path: G2p {128, 256}, G3p {64, 128, 256}, Q4p {64, 128, 192, 256}) at m = 128, 256 and 192; their SASS.
export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c PYTHONUNBUFFERED=1
M=128 timeout 200 python3 docs/device-logs/2026-11-27-session32/scripts/probe5.py G1 G2p G3p Q4p > $OUT/16-probe5-pin.log 2>&1; echo "rc $?" >> $OUT/16-probe5-pin.log
M=256 timeout 200 python3 docs/device-logs/2026-11-27-session32/scripts/probe5.py G2p G3p Q4p >> $OUT/16-probe5-pin.log 2>&1; echo "rc $?" >> $OUT/16-probe5-pin.log
M=192 timeout 200 python3 docs/device-logs/2026-11-27-session32/scripts/probe5.py Q4p >> $OUT/16-probe5-pin.log 2>&1; echo "rc $?" >> $OUT/16-probe5-pin.log
mkdir -p /tmp/sass && for f in G2p G3p Q4p; do cuobjdump -sass .scratch/s32/$f.cubin > /tmp/sass/$f.sass 2>&1; done
tar czf $OUT/17-sass.tgz -C /tmp sass
grep -v "bits equal to G8" $OUT/16-probe5-pin.log
