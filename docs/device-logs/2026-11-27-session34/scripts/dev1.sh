# Session 34, device run 1 (H100): cuobjdump -sass and nvdisasm -hex of the session-32 loop-set builds G1, G2, G4
# (written to .scratch/s34 by render_sass_builds.py; offline ptxas -arch=sm_90a).  The dumps are not kept.
export PATH=$PATH:/usr/local/cuda/bin
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/00-device.log 2>&1
mkdir -p /tmp/sass
for f in G1 G2 G4; do
  cuobjdump -sass .scratch/s34/$f.cubin > /tmp/sass/$f.sass 2>&1
  nvdisasm -hex -c .scratch/s34/$f.cubin > /tmp/sass/$f.nvd 2>&1
done
tar czf $OUT/sass.tgz -C /tmp sass
