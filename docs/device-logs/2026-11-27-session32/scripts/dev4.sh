# Session 32, device run 4: probe4.py (unit-loop sets of the grouped cluster kernel), then cuobjdump -sass of the
# offline-assembled cubins of G2, G2d, G3d and Q4d (.scratch/s32/, ptxas -arch=sm_90a of probe4's rendered texts).
export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv > $OUT/07-device.log 2>&1
timeout 420 python3 docs/device-logs/2026-11-27-session32/scripts/probe4.py > $OUT/08-probe4.log 2>&1; echo "rc $?" >> $OUT/08-probe4.log
mkdir -p /tmp/sass && for f in G2 G2d G3d Q4d; do cuobjdump -sass .scratch/s32/$f.cubin > /tmp/sass/$f.sass 2>&1; done
tar czf $OUT/09-sass.tgz -C /tmp sass
grep -v "bits equal to G8" $OUT/08-probe4.log | tail -32
