#!/bin/bash
# Session 42 device run 1: the unit drain against the committed kernel (ab42.py; .probe/*.ptx carried), SASS of both
cd "$(dirname "$0")/../../../.." || exit 1
S=docs/device-logs/2026-11-28-session42/scripts
export PYTHONPATH=. PYTHONUNBUFFERED=1 NVFP4RT_CACHE_DIR=/tmp/c42
nvidia-smi --query-gpu=name,driver_version --format=csv > "$OUT/01-smi.log" 2>&1
timeout 300 python3 $S/ab42.py 3 > "$OUT/02-ab42.log" 2>&1
echo rc=$? >> "$OUT/02-ab42.log"
mkdir -p "$OUT/sass"
for f in $(ls -S /tmp/c42/* 2>/dev/null | head -3); do
  cuobjdump -sass "$f" | gzip > "$OUT/sass/$(basename $f).sass.gz" 2>> "$OUT/sass/err.log"
done
ls -la /tmp/c42 >> "$OUT/sass/err.log" 2>&1
timeout 200 python3 -m pytest -q -x -rs tests/test_grouped_gemm_cluster.py tests/test_grouped_gemm.py > "$OUT/03-gpu-tests.log" 2>&1
echo rc=$? >> "$OUT/03-gpu-tests.log"
