#!/bin/bash
export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/01-sass.log
for n in all8 c1 c2 four; do
  ptxas -arch=sm_90a -o /tmp/$n.cubin .scratch/loops/$n.rendered.ptx 2>&1 | grep -o "C75[0-9]*" | sort -u | sed "s/^/$n ptxas: /" >> $OUT/01-sass.log
  cuobjdump -sass /tmp/$n.cubin > /tmp/$n.sass
  echo "$n: HGMMA $(grep -c HGMMA /tmp/$n.sass)  WARPGROUP.DEPBAR $(grep -c 'WARPGROUP.DEPBAR' /tmp/$n.sass)  WARPGROUP.ARRIVE $(grep -c 'WARPGROUP.ARRIVE' /tmp/$n.sass)  WARPSYNC $(grep -c 'WARPSYNC' /tmp/$n.sass)" >> $OUT/01-sass.log
done
grep -m3 -B2 -A6 "HGMMA.64x256x16" /tmp/all8.sass | head -40 >> $OUT/01-sass.log
echo ---- >> $OUT/01-sass.log
grep -m3 -B2 -A6 "HGMMA.64x256x16" /tmp/c1.sass | head -40 >> $OUT/01-sass.log
timeout 400 python3 .scratch/loops_ab.py > $OUT/02-loops-ab.log 2>&1
tail -5 $OUT/02-loops-ab.log
