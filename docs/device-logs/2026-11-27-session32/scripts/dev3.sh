# Session 32, device run 3: probe3.py (the grouped cluster kernel's 128-row unit against the GEMM template's), then
# cuobjdump -sass of the offline-assembled cubins (.scratch/s32/{T,G8,G1}.cubin: ptxas -arch=sm_90a of probe3.py
# --offline's texts) for the instruction counts of the unit loops.
export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv > $OUT/04-device.log 2>&1
timeout 400 python3 docs/device-logs/2026-11-27-session32/scripts/probe3.py > $OUT/05-probe3.log 2>&1; echo "rc $?" >> $OUT/05-probe3.log
mkdir -p /tmp/sass && for f in T G8 G1; do cuobjdump -sass .scratch/s32/$f.cubin > /tmp/sass/$f.sass 2>&1; done
tar czf $OUT/06-sass.tgz -C /tmp sass
grep -v "bits equal to T" $OUT/05-probe3.log | tail -30
