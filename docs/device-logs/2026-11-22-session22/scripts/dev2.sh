export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
timeout 300 python3 .scratch/s22/exp1.py > $OUT/01-exp1.log 2>&1
echo "rc=$?" >> $OUT/01-exp1.log
for args in "0" "1" "1 dict(a_wait=0)"; do
  echo "== synccheck san0.py $args" >> $OUT/02-sync.log
  timeout 100 compute-sanitizer --tool synccheck --error-exitcode 9 python3 .scratch/s22/san0.py $args 2>&1 | grep -v "Host Frame\|Saved host" | head -12 >> $OUT/02-sync.log
done
for f in $(ls /tmp/c/*/*.cubin 2>/dev/null /tmp/c/*.cubin 2>/dev/null); do echo "== $f"; cuobjdump -sass $f | grep -E "/\*8b[a-c]0\*/" ; done > $OUT/03-sass.log 2>&1
ls -R /tmp/c | head -20 >> $OUT/03-sass.log
grep -v " OK" $OUT/01-exp1.log | tail -30; cat $OUT/02-sync.log
