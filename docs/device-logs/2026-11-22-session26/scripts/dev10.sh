export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
python3 .scratch/s26/dual_probe.py > $OUT/36-dual-probes.log 2>&1; cat $OUT/36-dual-probes.log
python3 .scratch/s26/ab2.py > $OUT/37-ab-loop-grouped-cluster.log 2>&1; grep -v ": OK" $OUT/37-ab-loop-grouped-cluster.log
python3 .scratch/s26/san26.py grouped > $OUT/38-san-grouped-plain.log 2>&1; echo "rc=$?" >> $OUT/38-san-grouped-plain.log; tail -3 $OUT/38-san-grouped-plain.log
