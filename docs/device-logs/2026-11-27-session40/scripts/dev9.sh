#!/bin/bash
# Session 40 device run 9: the A16 producer's slices: the cluster suite on the GPU, the sanitizer (san40b.py), the A/B
# against the previous kernel (ab40d.py; .probe/cluster_before.ptx is that commit's file, carried)
cd "$(dirname "$0")/../../../.." || exit 1
S=docs/device-logs/2026-11-27-session40/scripts
export PYTHONPATH=. PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv > "$OUT/22-smi.log" 2>&1
timeout 300 python3 $S/ab40d.py .probe/cluster_before.ptx 4 > "$OUT/23-ab40d.log" 2>&1
echo rc=$? >> "$OUT/23-ab40d.log"
timeout 200 python3 -m pytest -q -x -rs tests/test_grouped_gemm_cluster.py > "$OUT/24-gpu-tests.log" 2>&1
echo rc=$? >> "$OUT/24-gpu-tests.log"
for tool in memcheck racecheck synccheck; do
  timeout 80 compute-sanitizer --tool $tool --error-exitcode 9 python3 $S/san40b.py > "$OUT/25-san-$tool.log" 2>&1
  echo rc=$? >> "$OUT/25-san-$tool.log"
done
