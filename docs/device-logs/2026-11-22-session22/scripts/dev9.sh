export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
timeout 300 python3 .scratch/s22/exp1.py > $OUT/01-exp1.log 2>&1
echo "rc=$?" >> $OUT/01-exp1.log
timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 python3 .scratch/s22/san.py > $OUT/02-memcheck.log 2>&1
echo "rc=$?" >> $OUT/02-memcheck.log
timeout 100 compute-sanitizer --tool synccheck --error-exitcode 9 python3 .scratch/s22/san.py 2>&1 | grep -v "Host Frame\|Saved host" > $OUT/03-synccheck.log
echo "rc=$?" >> $OUT/03-synccheck.log
pc=$(grep -m1 -o "nvfp4_gemm_wgmma_cluster+0x[0-9a-f]*" $OUT/03-synccheck.log | sed 's/.*+0x//')
echo "pc=$pc" > $OUT/04-pc.log
if [ -n "$pc" ]; then for f in $(find /tmp/c -name "*.cubin"); do cuobjdump -sass $f 2>/dev/null | grep -q "nvfp4_gemm_wgmma_cluster" || continue; cuobjdump -sass $f | grep -B12 -A4 "/\*$(printf %04x 0x$pc)\*/" | cut -c1-90 | sed "s@^@$(basename $f): @" ; done >> $OUT/04-pc.log 2>&1; fi
grep -v " OK" $OUT/01-exp1.log | tail -32; tail -3 $OUT/02-memcheck.log; grep -c "Barrier" $OUT/03-synccheck.log; tail -3 $OUT/03-synccheck.log
