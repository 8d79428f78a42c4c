export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
timeout 250 python3 .scratch/s22/exp9.py 2>&1
for f in ks2_0 ksL0 ksL1; do cuobjdump -sass .scratch/s22/$f.cubin | grep -E "^\s+/\*[0-9a-f]{4}\*/" | sed 's@/\* 0x[0-9a-f]* \*/@@' > /tmp/$f.sass; echo "$f $(wc -l < /tmp/$f.sass) first_hgmma=$(grep -n HGMMA /tmp/$f.sass | head -1 | cut -d: -f1) last=$(grep -n HGMMA /tmp/$f.sass | tail -1 | cut -d: -f1) WARPSYNC=$(grep -c WARPSYNC /tmp/$f.sass) CALL=$(grep -c CALL /tmp/$f.sass)"; done
