# Session 34, device run 14 (H100): cuobjdump -elf of the G1, G2 and G4 cubins (run 1's, written by
# render_sass_builds.py): the kernel attributes (.nv.info) that might differ while the HGMMA encodings do not.
export PATH=$PATH:/usr/local/cuda/bin
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/27-device.log 2>&1
for f in G1 G2 G4; do
  echo "== $f" >> $OUT/28-elf-info.log
  cuobjdump -elf .scratch/s34/$f.cubin | awk '/\.nv\.info/{p=1} /\.text\./{p=0} p' | grep -v "^\s*$" | head -150 >> $OUT/28-elf-info.log 2>&1
done
wc -l $OUT/28-elf-info.log
