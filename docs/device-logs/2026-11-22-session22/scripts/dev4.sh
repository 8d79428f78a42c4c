export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
for f in ks2_0 ks2_1 W1 W2 W3 W4; do cuobjdump -sass .scratch/s22/$f.cubin | grep -E "^\s+/\*[0-9a-f]{4}\*/" | sed 's@/\* 0x[0-9a-f]* \*/@@' > /tmp/$f.sass; echo "$f $(wc -l < /tmp/$f.sass) WARPSYNC=$(grep -c WARPSYNC /tmp/$f.sass) BSSY=$(grep -c BSSY /tmp/$f.sass) first_hgmma=$(grep -n HGMMA /tmp/$f.sass | head -1 | cut -d: -f1) tw_before=$(awk '/HGMMA/{n++} /TRYWAIT/{if(n>=1&&n<16)c++} END{print c}' /tmp/$f.sass)"; done
timeout 200 python3 .scratch/s22/exp3.py 2>&1
