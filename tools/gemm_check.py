"""GEMM correctness and timing on a list of shapes, for one kernel variant.

    PYTHONPATH=. python3 tools/gemm_check.py                     # runtime's variant, benchmark + ragged shapes
    PYTHONPATH=. python3 tools/gemm_check.py --variant mma       # force the mma.sync kernel
    PYTHONPATH=. python3 tools/gemm_check.py --shapes 128,7168,16384 1,1,64,2
    compute-sanitizer --tool memcheck python3 tools/gemm_check.py --small --variant mma

Per shape and distribution (competition and wide): fresh data (seed=None), c poisoned with NaN,
one call through nvfp4rt.gemm_raw, the float64 reference and the competition check, a second call
on new data through the same cached plan (split-K counters must have reset), then the median of
--iters launches with L2 cleared (a 200 MB memset) before each, timed with CUDA events.
Prints one PASS/FAIL line per shape; exits 1 if any failed.  --small: tiny shapes, 2 timed
launches (for compute-sanitizer).
"""
import argparse
import sys
import time

import numpy as np

import nvfp4rt
from nvfp4rt import data, driver, reference
from nvfp4rt.ops import gemm as G

BENCH = [(128, 7168, 16384, 1), (128, 4096, 7168, 1), (128, 7168, 2048, 1)]
RAGGED = [(1, 1, 64, 1), (129, 257, 448, 2), (1, 7168, 2048, 1), (200, 3, 4096, 3), (300, 1000, 1024, 1)]
SMALL = [(1, 1, 64, 1), (129, 130, 192, 2), (5, 300, 1024, 1), (128, 256, 2048, 1)]


def parse_shape(s):
    parts = [int(p) for p in s.split(",")]
    if len(parts) == 3:
        parts.append(1)
    if len(parts) != 4:
        raise argparse.ArgumentTypeError(f"shape {s!r}: expected m,n,k[,l]")
    return tuple(parts)


def device_views(d):
    out = {}
    for name in ("a", "b", "sfa", "sfb"):
        phys = d.physical(name)
        out[name] = nvfp4rt.asarray(phys.view(np.uint8) if name.startswith("sf") else phys).transpose(1, 2, 0)
    return out


def one_call(m, n, k, l, dist, variant):
    d = data.gemm_data(m, n, k, l, seed=None, distribution=dist)
    dv = device_views(d)
    poison = nvfp4rt.asarray(np.full((l, m, n), np.nan, np.float16))
    c = poison.transpose(1, 2, 0)
    G.gemm_raw(dv["a"], dv["b"], dv["sfa"], dv["sfb"], c, variant=variant)
    res = reference.check(poison.numpy().transpose(1, 2, 0), reference.gemm_ref(d.a, d.b, d.sfa, d.sfb))
    return res, (dv, c)


def time_it(fn, iters):
    s0 = driver.raw.CUstream(0)
    flush_bytes = 200 << 20
    flush = int(driver.call("cuMemAlloc", flush_bytes))
    e0, e1 = driver.call("cuEventCreate", 0), driver.call("cuEventCreate", 0)
    ts = []
    try:
        for i in range(iters):
            driver.call("cuMemsetD8Async", flush, i & 255, flush_bytes, s0)
            driver.call("cuEventRecord", e0, s0)
            fn()
            driver.call("cuEventRecord", e1, s0)
            driver.call("cuEventSynchronize", e1)
            ts.append(driver.call("cuEventElapsedTime", e0, e1) * 1000.0)
    finally:
        driver.call("cuMemFree", flush)
    return float(np.median(ts[min(5, iters - 1):]))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--variant", choices=["mma", "wgmma"], default=None, help="force a kernel variant")
    ap.add_argument("--shapes", nargs="*", type=parse_shape, help="m,n,k[,l] (default: benchmark + ragged)")
    ap.add_argument("--small", action="store_true", help="small shapes and 2 timed launches (compute-sanitizer)")
    ap.add_argument("--iters", type=int, default=100)
    ap.add_argument("--dist", choices=["competition", "wide", "both"], default="both")
    args = ap.parse_args(argv)
    dev = nvfp4rt.device()
    shapes = args.shapes or (SMALL if args.small else BENCH + RAGGED)
    iters = 2 if args.small else args.iters
    dists = ["competition", "wide"] if args.dist == "both" else [args.dist]
    print(f"device {dev.properties.name} ({dev.arch}); variant {args.variant or G.variant_for(dev)} "
          f"({'forced' if args.variant else 'runtime choice'})", flush=True)
    failed = 0
    for (m, n, k, l) in shapes:
        for dist in dists:
            t0 = time.time()
            res, _ = one_call(m, n, k, l, dist, args.variant)
            res2, (dv, c) = one_call(m, n, k, l, dist, args.variant)  # same cached plan, new data
            ok = res.ok and res2.ok
            failed += not ok
            plan = G.plan_gemm(m, n, k, l, layout=G.raw_problem(dv["a"], dv["b"], dv["sfa"], dv["sfb"], c)[4],
                               variant=args.variant)
            us = time_it(lambda: plan(dv["a"], dv["b"], dv["sfa"], dv["sfb"], c), iters)
            tflops = 2.0 * m * n * k * l / (us * 1e-6) / 1e12
            extra = ""
            if isinstance(plan, G.GemmMmaPlan):
                extra = f" splits={plan.geometry.splits} grid={plan.geometry.grid}"
            print(f"{'PASS' if ok else 'FAIL'} {plan.variant if hasattr(plan, 'variant') else '?'} "
                  f"m={m} n={n} k={k} l={l} {dist}: {us:.1f} us, {tflops:.0f} TFLOP/s{extra}"
                  + ("" if ok else f"; first call: {res}; second call: {res2}")
                  + f" [{time.time() - t0:.1f} s]", flush=True)
    print(f"{'ALL PASS' if not failed else f'{failed} FAILED'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
