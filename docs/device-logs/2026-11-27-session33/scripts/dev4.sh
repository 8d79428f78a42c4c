# Session 33, device run 4 (H100): compute-sanitizer racecheck and synccheck on san33.py, probe4.py (cuts of the TMA-store
# epilogue's path on case 2), and the grouped bench.
export PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=. NVFP4RT_CACHE_DIR=/tmp/c PYTHONUNBUFFERED=1 NVFP4RT_GIT_REVISION=a688d690153f
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv > $OUT/11-device.log 2>&1
for tool in racecheck synccheck; do
  echo "== $tool" >> $OUT/11-sanitizer.log
  timeout 150 compute-sanitizer --tool $tool --error-exitcode 9 python3 docs/device-logs/2026-11-27-session33/scripts/san33.py >> $OUT/11-sanitizer.log 2>&1; echo "rc $?" >> $OUT/11-sanitizer.log
done
grep -E "^== |ERROR SUMMARY|RACECHECK SUMMARY|FAILS|rc " $OUT/11-sanitizer.log
timeout 200 python3 docs/device-logs/2026-11-27-session33/scripts/probe4.py > $OUT/12-epilogue-cuts2.log 2>&1; echo "rc $?" >> $OUT/12-epilogue-cuts2.log
tail -n 9 $OUT/12-epilogue-cuts2.log
timeout 280 python3 -m nvfp4rt.cli bench grouped_gemm --results-dir $OUT > $OUT/13-bench-grouped_gemm.log 2>&1; echo "rc $?" >> $OUT/13-bench-grouped_gemm.log
grep "\[bench\]   \|rc \|fp16" $OUT/13-bench-grouped_gemm.log
