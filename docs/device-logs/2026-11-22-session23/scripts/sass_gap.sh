# for each cubin: instructions between each WARPGROUP.DEPBAR and the next WARPGROUP.ARRIVE in the consumer loop
for f in "$@"; do
  cuobjdump -sass $f | grep -E '^\s+/\*[0-9a-f]{4,}\*/' | awk -v F=$(basename $f) '
    /WARPGROUP.DEPBAR/ {if (indep) {}; indep=1; n=0; next}
    indep && /WARPGROUP.ARRIVE/ {gaps = gaps " " n; indep=0; next}
    indep {n++}
    END {print F ": DEPBAR->ARRIVE gaps:" gaps}'
done
