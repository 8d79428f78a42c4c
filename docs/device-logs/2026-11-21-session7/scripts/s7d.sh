export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
nvidia-smi -L > $OUT/00-smi.txt 2>&1; cat $OUT/00-smi.txt
mkdir -p $OUT/results
for op in gemm dual_gemm grouped_gemm; do
  NVFP4RT_GIT_REVISION=82dd704 timeout 200 python3 tools/bench.py $op --results-dir $OUT/results > $OUT/10-bench-$op.log 2>&1; echo "$op rc=$?"; tail -8 $OUT/10-bench-$op.log
done
timeout 120 python3 -m pytest -q -m gpu tests/test_profile_cluster_kernel.py tests/test_streamk_head_check.py > $OUT/11-pytest-profile-head.log 2>&1; echo "pytest rc=$?"; tail -3 $OUT/11-pytest-profile-head.log
for op in gemm dual_gemm grouped_gemm; do
  timeout 150 python3 tools/profile_cluster_kernel.py $op > $OUT/12-profile-$op.log 2>&1; echo "$op rc=$?"; cat $OUT/12-profile-$op.log
done
