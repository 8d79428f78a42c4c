export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
nvidia-smi -L > $OUT/00-smi.txt 2>&1; cat $OUT/00-smi.txt
timeout 200 python3 .scratch/head_ab.py > $OUT/05-head-wait-ab.log 2>&1; echo "ab rc=$?"; cat $OUT/05-head-wait-ab.log
timeout 100 python3 .scratch/grp34.py > $OUT/06-grouped-small-cases.log 2>&1; echo "g rc=$?"; cat $OUT/06-grouped-small-cases.log
timeout 250 python3 -m pytest -q -m gpu tests/test_streamk_head_check.py tests/test_gemm_wgmma_cluster.py tests/test_dual_gemm_cluster.py tests/test_grouped_gemm_cluster.py tests/test_profile_cluster_kernel.py > $OUT/07-pytest-cluster-kernels.log 2>&1; echo "pytest rc=$?"; tail -3 $OUT/07-pytest-cluster-kernels.log
for tool in memcheck racecheck synccheck; do
  timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 python3 .scratch/san_head.py > $OUT/08-san-$tool.log 2>&1; echo "$tool rc=$?"; tail -3 $OUT/08-san-$tool.log
done
