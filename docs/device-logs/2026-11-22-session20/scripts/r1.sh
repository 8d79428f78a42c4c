#!/bin/bash
export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
for f in ks10 ks8; do echo "=== /tmp/s20_$f.cubin"; cuobjdump -sass .scratch/s20/cubins/s20_$f.cubin; done > /tmp/loop.sass
python3 .scratch/s20/sass_count.py /tmp/loop.sass > $OUT/02-loop-sass.txt 2>&1
timeout 500 python3 .scratch/s20/exp1.py > $OUT/01-aunit.log 2>&1
echo rc $? >> $OUT/01-aunit.log
tail -5 $OUT/02-loop-sass.txt; grep -E "FAIL|kernel /|rc |Error|error" $OUT/01-aunit.log | head -60
