export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
timeout 200 python3 .scratch/s23/wgrate2.py > $OUT/03-wgrate2.log 2>&1
for k in none dec dec_nomul mul8 mul16 fma16 lop16 imad16 shl16 prmt16 cvt8 iadd16; do
  cuobjdump -sass .scratch/s23/wr_$k.cubin | awk '/HGMMA/{h++} /LOOP|BRA/{} {print}' > /tmp/s_$k.txt
  echo "$k: $(grep -c HGMMA /tmp/s_$k.txt) HGMMA, $(grep -cE ' (LOP3|SHF|IMAD|HMUL2|HFMA2|PRMT|F2FP|IADD3|LDS|LEA)' /tmp/s_$k.txt) alu/lds total;" \
       "$(grep -oE '^ +/\*[0-9a-f]+\*/ +[A-Z0-9_.]+' /tmp/s_$k.txt | awk '{print $2}' | sed 's/\..*//' | sort | uniq -c | sort -rn | head -12 | tr '\n' ' ')"
done >> $OUT/03-wgrate2.log
cuobjdump -sass .scratch/s23/wr_dec.cubin > $OUT/04-dec-sass.txt
cat $OUT/03-wgrate2.log
