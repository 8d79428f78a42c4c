# Session 33, device run 12 (H100): the grouped bench at 9169dc24d421 (the final kernel of the session).
export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c PYTHONUNBUFFERED=1 NVFP4RT_GIT_REVISION=9169dc24d421
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv > $OUT/37-device.log 2>&1
timeout 250 python3 -m nvfp4rt.cli bench grouped_gemm --results-dir $OUT > $OUT/38-bench-grouped_gemm.log 2>&1; echo "rc $?" >> $OUT/38-bench-grouped_gemm.log
grep "\[bench\]   \|rc \|fp16" $OUT/38-bench-grouped_gemm.log
