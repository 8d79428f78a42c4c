export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
nvidia-smi -L > $OUT/00-smi.txt 2>&1
timeout 250 python3 -m pytest -q -m gpu tests/test_grouped_gemm_cluster.py tests/test_grouped_gemm.py tests/test_decode_a16.py > $OUT/10-pytest-grouped-6165c05.log 2>&1
tail -2 $OUT/10-pytest-grouped-6165c05.log
timeout 200 python3 -m pytest -q -m gpu tests/test_gemm_wgmma_cluster.py tests/test_dual_gemm_cluster.py > $OUT/11-pytest-cluster-gemm-dual-6165c05.log 2>&1
tail -2 $OUT/11-pytest-cluster-gemm-dual-6165c05.log
for tool in memcheck racecheck synccheck; do
  timeout 100 compute-sanitizer --tool $tool --error-exitcode 9 python3 tools/grouped_gemm_check.py --small --kernel cluster > $OUT/12-san-$tool-6165c05.log 2>&1; echo "$tool rc=$?"; tail -1 $OUT/12-san-$tool-6165c05.log
done
