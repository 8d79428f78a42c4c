#!/bin/bash
# Session 42 device run 2: the unit drain (working tree) against base, with WG_WAIT=3 and steps of 8 (ab42.py;
# .probe/*.ptx carried); the cluster and grouped suites on the GPU; the sanitizer (san42.py)
cd "$(dirname "$0")/../../../.." || exit 1
S=docs/device-logs/2026-11-28-session42/scripts
export PYTHONPATH=. PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv > "$OUT/04-smi.log" 2>&1
timeout 240 python3 $S/ab42.py 3 base=.probe/base.ptx,ud=ptx/grouped_gemm_nvfp4_wgmma_cluster.ptx,w3=.probe/w3.ptx:A_UNIT=0,ud8=.probe/ud8.ptx:step=8 > "$OUT/05-ab42.log" 2>&1
echo rc=$? >> "$OUT/05-ab42.log"
timeout 150 python3 -m pytest -q -x -rs tests/test_grouped_gemm_cluster.py tests/test_grouped_gemm.py > "$OUT/06-gpu-tests.log" 2>&1
echo rc=$? >> "$OUT/06-gpu-tests.log"
for tool in memcheck racecheck synccheck; do
  timeout 80 compute-sanitizer --tool $tool --error-exitcode 9 python3 $S/san42.py > "$OUT/07-san-$tool.log" 2>&1
  echo rc=$? >> "$OUT/07-san-$tool.log"
done
