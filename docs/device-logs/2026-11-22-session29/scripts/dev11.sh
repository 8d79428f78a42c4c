export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c
REV=57acd8a00000
REV=$(cat .scratch/s29/rev)
timeout 200 python3 .scratch/s29/exp10.py > $OUT/16-carveout-ab.log 2>&1; echo "rc $?" >> $OUT/16-carveout-ab.log
tail -16 $OUT/16-carveout-ab.log
timeout 150 python3 -m pytest -q -m gpu tests/test_decode_a16.py tests/test_gemm_wgmma_cluster.py tests/test_grouped_gemm_mtiles.py > $OUT/17-pytest-gpu.log 2>&1; echo "rc $?" >> $OUT/17-pytest-gpu.log
tail -3 $OUT/17-pytest-gpu.log
for op in gemm dual_gemm grouped_gemm; do
  NVFP4RT_GIT_REVISION=$REV timeout 150 python3 tools/bench.py $op --results-dir $OUT > $OUT/18-bench-$op.log 2>&1; echo "$op rc=$?"
  tail -5 $OUT/18-bench-$op.log | grep "\[bench\]"
done
