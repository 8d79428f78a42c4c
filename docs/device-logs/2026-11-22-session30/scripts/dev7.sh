export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
which ncu || ls /usr/local/cuda/bin | grep -i ncu; ls /opt/nvidia 2>/dev/null
M=dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_read_lookup_miss.sum,gpu__time_duration.sum
for a in "case1" "case1 c1" "128x7168x16384" "case2"; do
  echo "=== $a" >> $OUT/07-ncu.log
  timeout 120 ncu --metrics $M -k regex:gemm python3 .scratch/s30/ncu1.py $a >> $OUT/07-ncu.log 2>&1
done
grep -v "^==PROF==" $OUT/07-ncu.log | tail -60
