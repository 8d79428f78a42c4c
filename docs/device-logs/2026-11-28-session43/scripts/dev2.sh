#!/bin/bash
# Session 43 device run 2: the gemm, dual and grouped benches built by the JIT linker and by ptxas on one machine,
# alternating, twice (the bench JSON tarred: the device returns at most 8 files)
cd "$(dirname "$0")/../../../.." || exit 1
export PYTHONPATH=. PYTHONUNBUFFERED=1 NVFP4RT_CACHE_DIR=/tmp/nvfp4rt-cubins
nvidia-smi --query-gpu=name,driver_version --format=csv > "$OUT/05-smi.log" 2>&1
for round in 1 2; do
  for op in dual_gemm grouped_gemm gemm; do
    for c in link ptxas; do
      echo "== round $round $op $c" >> "$OUT/06-bench-ab.log"
      NVFP4RT_COMPILER=$c timeout 100 python3 -m nvfp4rt.cli bench $op --results-dir /tmp/bench-$c \
        2>&1 | grep -v "^\[ceilings\]" >> "$OUT/06-bench-ab.log"
    done
  done
done
tar czf "$OUT/06-bench-json.tgz" -C /tmp bench-link bench-ptxas
