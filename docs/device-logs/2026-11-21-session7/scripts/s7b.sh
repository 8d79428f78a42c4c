export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
nvidia-smi -L > $OUT/00-smi.txt 2>&1; cat $OUT/00-smi.txt
timeout 300 python3 .scratch/head_ab.py > $OUT/03-head-wait-ab.log 2>&1; echo "ab rc=$?"; cat $OUT/03-head-wait-ab.log
timeout 200 python3 -m pytest -q -m gpu -x tests/test_streamk_head_check.py > $OUT/04-pytest-head.log 2>&1; echo "pytest rc=$?"; tail -3 $OUT/04-pytest-head.log
