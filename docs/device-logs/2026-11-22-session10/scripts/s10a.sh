#!/bin/bash
# session 10, batch a: stream-K over K-split pairs: correctness, bit-identity, timing, sanitizer on small shapes
export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/00-smi.txt
timeout 200 python3 .scratch/kss_check.py check > $OUT/01-kss-check.log 2>&1; echo "rc=$?" >> $OUT/01-kss-check.log
tail -3 $OUT/01-kss-check.log
timeout 170 python3 .scratch/kss_check.py time > $OUT/02-kss-time.log 2>&1; echo "rc=$?" >> $OUT/02-kss-time.log
cat $OUT/02-kss-time.log
for tool in memcheck racecheck synccheck; do
  timeout 65 compute-sanitizer --tool $tool --error-exitcode 9 python3 .scratch/kss_check.py small > $OUT/03-san-$tool.log 2>&1; echo "rc=$?" >> $OUT/03-san-$tool.log
  tail -2 $OUT/03-san-$tool.log
done
grep -c FAIL $OUT/01-kss-check.log; grep -E "FAIL|DIFFER|differ|Error|error" $OUT/01-kss-check.log | head
