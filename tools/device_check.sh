#!/usr/bin/env bash
# One batched run on a GPU machine: environment, the whole test suite (GPU tests included),
# compute-sanitizer on the kernels, and the benchmarks.  Logs go to $OUT (or ./device_out).
# Usage: bash tools/device_check.sh [tests|sanitize|bench|all]...   (default: all)
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
  for tool in memcheck racecheck; do
    compute-sanitizer --tool $tool --error-exitcode 9 python3 tools/sanitize_kernels.py 2>&1 | tail -40 | tee "$OUT/sanitizer-$tool.log" || status=1
  done
fi
if want bench; then
  python3 -m nvfp4rt.cli bench gemv 2>&1 | tee "$OUT/bench-gemv.log" || status=1
  cp bench/results/*.json "$OUT/" 2>/dev/null || true
  cp BENCHMARKS.md "$OUT/" 2>/dev/null || true
fi
exit $status
