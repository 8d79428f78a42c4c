#!/bin/bash
# Session 43 device run 3: the "auto" compiler's GPU tests, the dual tiles-against-cluster sweep (dual43.py), and
# compute-sanitizer on the extended tools/sanitize_kernels.py (every plan class of gemm, dual and grouped)
cd "$(dirname "$0")/../../../.." || exit 1
export PYTHONPATH=. PYTHONUNBUFFERED=1 NVFP4RT_CACHE_DIR=/tmp/nvfp4rt-cubins
S=docs/device-logs/2026-11-28-session43/scripts
nvidia-smi --query-gpu=name,driver_version --format=csv > "$OUT/07-smi.log" 2>&1
timeout 90 python3 -m pytest -q -rs tests/test_module.py tests/test_dual_gemm_cluster.py tests/test_grouped_gemm_cluster.py \
  -k "compiler or whole_program or setmaxnreg or ptxas" > "$OUT/08-auto-tests.log" 2>&1
echo rc=$? >> "$OUT/08-auto-tests.log"
timeout 220 python3 $S/dual43.py > "$OUT/09-dual43.log" 2>&1
echo rc=$? >> "$OUT/09-dual43.log"
timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 python3 tools/sanitize_kernels.py gemm dual grouped \
  > "$OUT/10-san-memcheck.log" 2>&1
echo rc=$? >> "$OUT/10-san-memcheck.log"
timeout 110 compute-sanitizer --tool racecheck --error-exitcode 9 python3 tools/sanitize_kernels.py dual grouped \
  > "$OUT/10-san-racecheck.log" 2>&1
echo rc=$? >> "$OUT/10-san-racecheck.log"
