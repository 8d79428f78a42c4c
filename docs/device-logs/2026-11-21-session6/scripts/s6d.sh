export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
timeout 120 python3 -m pytest -q -m gpu tests/test_profile_cluster_kernel.py > $OUT/21-pytest-profile.log 2>&1; echo "pytest rc=$?"; tail -3 $OUT/21-pytest-profile.log
for op in gemm dual_gemm grouped_gemm; do
  timeout 150 python3 tools/profile_cluster_kernel.py $op > $OUT/22-profile-$op.log 2>&1; echo "$op rc=$?"; cat $OUT/22-profile-$op.log
done
