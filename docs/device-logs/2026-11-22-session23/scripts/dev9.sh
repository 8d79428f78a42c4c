export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
for f in base pr_desc64; do echo "$f: $(cuobjdump -sass .scratch/s23/$f.cubin | grep -cE 'UMOV|UIADD3|UMOV') uniform movs/adds; $(cuobjdump -sass .scratch/s23/$f.cubin | grep -c HGMMA) HGMMA"; done > $OUT/18-desc64.log
timeout 200 python3 .scratch/s23/exp4.py desc64 >> $OUT/18-desc64.log 2>&1; echo rc=$? >> $OUT/18-desc64.log
grep -v " OK$" $OUT/18-desc64.log
