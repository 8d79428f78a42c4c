#!/bin/bash
export PATH=$PATH:/usr/local/cuda/bin
for n in committed fma; do
  ptxas -arch=sm_90a -o /tmp/$n.cubin .scratch/s12/sass/$n.ptx
  cuobjdump -sass /tmp/$n.cubin > /tmp/$n.sass
  # the unit loop: from the first HGMMA's block to the 16th HGMMA
  awk '/HGMMA/{n++} n>=1 && n<=16 {print}' /tmp/$n.sass > $OUT/sass-$n-loop.txt
  echo "== $n: opcode counts in the first 16 HGMMAs' span"
  grep -oE '^\s+/\*[0-9a-f]+\*/\s+(@!?U?P[0-9T] )?[A-Z0-9_.]+' $OUT/sass-$n-loop.txt | awk '{print $NF}' | sort | uniq -c | sort -rn | head -30
done
