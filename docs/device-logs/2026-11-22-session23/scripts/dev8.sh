export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
timeout 100 python3 .scratch/s23/wgrate2.py dec dec:depth=0 none:depth=0 dec:depth=0:scl=1:bw=1:arr=1:nbuf=8 dec:scl=1:bw=1:arr=1:nbuf=8 > $OUT/16-wgrate2-depth0.log 2>&1
cat $OUT/16-wgrate2-depth0.log
timeout 200 python3 .scratch/s23/exp4.py wait0 > $OUT/17-wait0.log 2>&1; echo rc=$? >> $OUT/17-wait0.log
grep -v " OK$" $OUT/17-wait0.log
