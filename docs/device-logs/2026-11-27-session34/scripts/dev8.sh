# Session 34, device run 8 (H100): the grouped bench at d6c02ea51e9d (the cluster kernel's new schedule).
export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c PYTHONUNBUFFERED=1 NVFP4RT_GIT_REVISION=d6c02ea51e9d
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv > $OUT/15-device.log 2>&1
timeout 400 python3 -m nvfp4rt.cli bench grouped_gemm --results-dir $OUT > $OUT/16-bench-grouped_gemm.log 2>&1; echo "rc $?" >> $OUT/16-bench-grouped_gemm.log
grep "\[bench\]   \|rc \|fp16" $OUT/16-bench-grouped_gemm.log
