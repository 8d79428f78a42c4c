export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
timeout 120 python3 .scratch/s21/final.py > $OUT/19-final-capped.log 2>&1; echo "rc=$?" >> $OUT/19-final-capped.log
timeout 300 python3 -m pytest -q -rs -m gpu tests/test_dual_gemm_tiles.py tests/test_dual_gemm_cluster.py tests/test_dual_gemm.py > $OUT/20-gpu-tests-final.log 2>&1; echo "rc=$?" >> $OUT/20-gpu-tests-final.log
tail -n 4 $OUT/19-final-capped.log $OUT/20-gpu-tests-final.log
