export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
for b in A B; do cuobjdump -sass .scratch/gx_$b.cubin > $OUT/sass_$b.txt 2>&1; echo "$b: HGMMA $(grep -c HGMMA $OUT/sass_$b.txt) DEPBAR $(grep -c 'WARPGROUP.DEPBAR' $OUT/sass_$b.txt) ARRIVE $(grep -c 'WARPGROUP.ARRIVE' $OUT/sass_$b.txt)"; done
timeout 400 python3 .scratch/calib_exp.py 2>&1 | tee $OUT/06-calib-exp.log
