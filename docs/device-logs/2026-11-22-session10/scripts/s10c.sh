#!/bin/bash
export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
timeout 200 python3 .scratch/kss_check.py check > $OUT/06-kss-check.log 2>&1; echo "rc=$?" >> $OUT/06-kss-check.log
tail -2 $OUT/06-kss-check.log; grep -E "FAIL|DIFFER|differ" $OUT/06-kss-check.log | head -5
timeout 200 python3 .scratch/kss_diag.py > $OUT/07-kss-diag.log 2>&1; echo "rc=$?" >> $OUT/07-kss-diag.log
cat $OUT/07-kss-diag.log
timeout 150 python3 .scratch/kss_timeline.py > $OUT/08-kss-timeline.log 2>&1; echo "rc=$?" >> $OUT/08-kss-timeline.log
cat $OUT/08-kss-timeline.log
