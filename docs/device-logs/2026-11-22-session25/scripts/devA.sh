export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.draw --format=csv > $OUT/00-smi.log 2>&1
python3 .scratch/s25/co.py > $OUT/01-co.log 2>&1
tail -5 $OUT/01-co.log
