export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
nvidia-smi -L > $OUT/00-smi.txt 2>&1
timeout 240 python3 -m pytest -q -x -m gpu tests/test_grouped_gemm_cluster.py -k "decode or (matches_float64 and (shapes0 or shapes4 or shapes5))" > $OUT/01-pytest-quick.log 2>&1
tail -3 $OUT/01-pytest-quick.log
timeout 200 python3 .scratch/time_grouped.py > $OUT/02-time.log 2>&1
cat $OUT/02-time.log
timeout 120 python3 -m pytest -q -m gpu tests/test_grouped_gemm_cluster.py > $OUT/03-pytest-all.log 2>&1
tail -15 $OUT/03-pytest-all.log
