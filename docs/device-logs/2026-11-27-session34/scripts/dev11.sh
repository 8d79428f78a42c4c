# Session 34, device run 11 (H100): tools/profile_cluster_kernel.py grouped_gemm at 36b85cb (case 2 on the cluster
# kernel under the new schedule; the other cases run the m-tile plan, which the tool does not instrument).
export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv > $OUT/21-device.log 2>&1
timeout 300 python3 tools/profile_cluster_kernel.py grouped_gemm --runs 40 > $OUT/22-profile-grouped.log 2>&1; echo "rc $?" >> $OUT/22-profile-grouped.log
cat $OUT/22-profile-grouped.log
