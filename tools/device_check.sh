#!/usr/bin/env bash
# One batched run on a GPU machine: environment, the whole test suite (GPU tests included),
# compute-sanitizer on the kernels, and the benchmarks.  Logs go to $OUT (or ./device_out).
# Usage: bash tools/device_check.sh [tests|sanitize|bench|all]...   (default: all)
# Environment: NVFP4RT_COMPILER (auto (default), link, driver, ptxas: which compiler builds every kernel), BENCH_OPS (e.g.
# "gemv gemm dual_gemm grouped_gemm"; default gemv).  Bench JSON goes to $OUT/bench.
set -u -o pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/device_out}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD${PYTHONPATH:+:$PYTHONPATH}
export NVFP4RT_CACHE_DIR=${NVFP4RT_CACHE_DIR:-/tmp/nvfp4rt-cubins}
steps=${*:-all}
status=0
want() { [[ " $steps " == *" all "* || " $steps " == *" $1 "* ]]; }

{ nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv; \
  python3 -c "import cuda.bindings, numpy, ml_dtypes; print('cuda-bindings', cuda.bindings.__version__, 'numpy', numpy.__version__, 'ml_dtypes', ml_dtypes.__version__)"; } 2>&1 | tee "$OUT/env.txt"

if want tests; then
  python3 -m pytest -q -rs -p no:cacheprovider tests 2>&1 | tee "$OUT/pytest.log" || status=1
fi
if want sanitize; then
  for tool in memcheck racecheck synccheck; do
    compute-sanitizer --tool $tool --error-exitcode 9 python3 tools/sanitize_kernels.py 2>&1 | tail -40 | tee "$OUT/sanitizer-$tool.log" || status=1
  done
fi
if want bench; then
  # BENCH_OPS: the ops to bench (default gemv); the logs name the compiler ($NVFP4RT_COMPILER, default link)
  for op in ${BENCH_OPS:-gemv}; do
    python3 -m nvfp4rt.cli bench "$op" --results-dir "$OUT/bench" 2>&1 \
      | tee "$OUT/bench-$op-${NVFP4RT_COMPILER:-link}.log" || status=1
  done
fi
exit $status
