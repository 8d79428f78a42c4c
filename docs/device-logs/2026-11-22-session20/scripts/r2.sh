#!/bin/bash
export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
timeout 330 python3 .scratch/s20/exp2.py > $OUT/03-rings-probes.log 2>&1
echo rc $? >> $OUT/03-rings-probes.log
timeout 200 python3 .scratch/s20/exp2.py risky > $OUT/05-probe-p1.log 2>&1
echo rc $? >> $OUT/05-probe-p1.log
grep -E "FAIL|kernel /|rc |Error|error" $OUT/03-rings-probes.log $OUT/05-probe-p1.log | head -60
