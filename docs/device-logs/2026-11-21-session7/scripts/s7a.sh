export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
nvidia-smi -L > $OUT/00-smi.txt 2>&1; cat $OUT/00-smi.txt
timeout 200 python3 .scratch/head_ab.py > $OUT/01-head-ab.log 2>&1; echo "ab rc=$?"; cat $OUT/01-head-ab.log
timeout 250 python3 -m pytest -q -m gpu -x tests/test_streamk_head_check.py tests/test_gemm_wgmma_cluster.py tests/test_dual_gemm_cluster.py tests/test_grouped_gemm_cluster.py > $OUT/02-pytest-cluster-kernels.log 2>&1; echo "pytest rc=$?"; tail -3 $OUT/02-pytest-cluster-kernels.log
