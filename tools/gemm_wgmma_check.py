"""GPU check of the Hopper wgmma NVFP4 GEMM (ptx/gemm_nvfp4_wgmma.ptx via nvfp4rt.ops.gemm_wgmma).

    PYTHONPATH=. python3 tools/gemm_wgmma_check.py                # correctness + timings
    PYTHONPATH=. python3 tools/gemm_wgmma_check.py --small        # few small shapes, one launch each
    compute-sanitizer --tool memcheck python3 tools/gemm_wgmma_check.py --small
    options: --stages S, --units-per-cta U (forces the stream-K split), --subnormal-operands
             (NORMAL_OPERANDS=0 kernel), --multicast (refused until implemented), --no-time,
             --iters N, --info (prints geometry and ptxas resources)

For every shape and both data distributions: fresh data (nvfp4rt.data.gemm_data, seed=None),
c poisoned with NaN, one launch, compare with nvfp4rt.reference.gemm_ref (the competition's
tolerance), then a second launch into a re-poisoned c that must be bit-identical (the
reduction is deterministic and the counters were reset).  Prints PASS/FAIL per line; exit 1 on
any FAIL.  The benchmark shapes are then timed with nvfp4rt.bench.time_op (L2 cleared before
each call, median), with TFLOP/s and the H100 bars (2x the cuBLAS fp16 peer of FACTS section 4).
"""
import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402

import nvfp4rt  # noqa: E402
from nvfp4rt import data, reference  # noqa: E402
from nvfp4rt.ops import gemm_wgmma as W  # noqa: E402

BENCH = [(128, 7168, 16384, 1), (128, 4096, 7168, 1), (128, 7168, 2048, 1)]
CUBLAS_H100_US = {BENCH[0]: 103.2, BENCH[1]: 33.8, BENCH[2]: 19.1}
AWKWARD = [(1, 1, 64, 1), (127, 129, 320, 1), (129, 1000, 1088, 2), (200, 7, 960, 1), (64, 300, 256, 3),
           (256, 4096, 512, 1), (128, 8, 8192, 1), (300, 1111, 2048, 1), (33, 2049, 1536, 2), (128, 128, 256, 1),
           (130, 7168, 2048, 1)]
SMALL = [(1, 1, 64, 1), (127, 129, 320, 1), (64, 300, 256, 2), (128, 256, 1024, 1)]


def device_arrays(d):
    out = {name: nvfp4rt.from_numpy(np.ascontiguousarray(d.physical(name)).view(np.uint8))
           for name in ("a", "b", "sfa", "sfb")}
    out["c"] = nvfp4rt.from_numpy(np.full((d.l, d.m, d.n), np.nan, dtype=np.float16))
    return out


def check_shape(shape, distribution, plan_kwargs, verbose):
    m, n, k, l = shape
    d = data.gemm_data(m, n, k, l, seed=None, distribution=distribution)
    ref = reference.gemm_ref(d.a, d.b, d.sfa, d.sfb)
    arr = device_arrays(d)
    plan = W.GemmWgmmaPlan(m, n, k, l, **plan_kwargs)
    plan(arr["a"], arr["b"], arr["sfa"], arr["sfb"], arr["c"])
    out = arr["c"].numpy()
    res = reference.check(out.transpose(1, 2, 0), ref)
    arr["c"].copy_from_host_async(np.full((l, m, n), np.nan, dtype=np.float16))
    plan(arr["a"], arr["b"], arr["sfa"], arr["sfb"], arr["c"])
    again = arr["c"].numpy()
    same = np.array_equal(out.view(np.uint16), again.view(np.uint16))
    ok = res.ok and same
    g = plan.geometry
    print(f"{'PASS' if ok else 'FAIL'} {m},{n},{k},{l} {distribution:11s} grid={g.grid} upc={g.units_per_cta} "
          f"split_tiles={g.split_tiles}" + ("" if res.ok else f"  {res.report()}")
          + ("" if same else "  second launch differs (non-deterministic or counters not reset)"), flush=True)
    if verbose and not res.ok:
        bad = ~np.isclose(out.transpose(1, 2, 0).astype(np.float64), ref, rtol=1e-3, atol=1e-3)
        idx = np.argwhere(bad)[:8]
        print("   first bad (m, n, l):", [tuple(int(x) for x in i) for i in idx])
    return ok, plan, arr


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--small", action="store_true")
    ap.add_argument("--stages", type=int)
    ap.add_argument("--units-per-cta", type=int)
    ap.add_argument("--subnormal-operands", action="store_true")
    ap.add_argument("--multicast", action="store_true")
    ap.add_argument("--no-time", action="store_true")
    ap.add_argument("--iters", type=int, default=100)
    ap.add_argument("--info", action="store_true")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args(argv)

    dev = nvfp4rt.device()
    print(f"device: {dev.properties.name}, {dev.properties.sm_count} SMs", flush=True)
    kw = dict(stages=args.stages, units_per_cta=args.units_per_cta, multicast=args.multicast,
              normal_operands=not args.subnormal_operands)
    if args.info:
        from nvfp4rt.assemble import assemble

        rep = assemble(Path(W.__file__).resolve().parent.parent.parent / "ptx" / "gemm_nvfp4_wgmma.ptx", "sm_90a",
                       {"NORMAL_OPERANDS": 0 if args.subnormal_operands else 1})
        print(rep.log.strip())
    bad = 0
    shapes = SMALL if args.small else BENCH + AWKWARD
    for shape in shapes:
        for dist in ("competition", "wide"):
            try:
                ok, _, _ = check_shape(shape, dist, kw, args.verbose)
            except Exception as exc:  # report and go on: one broken shape must not hide the others
                ok = False
                print(f"FAIL {shape} {dist}: {type(exc).__name__}: {exc}", flush=True)
            bad += not ok
    if not args.small and not args.no_time:
        from nvfp4rt.bench import time_op

        print("timings (median, L2 cleared before each call):", flush=True)
        for shape in BENCH:
            m, n, k, l = shape
            d = data.gemm_data(m, n, k, l, seed=None)
            arr = device_arrays(d)
            plan = W.GemmWgmmaPlan(m, n, k, l, **kw)
            t = time_op(lambda: plan(arr["a"], arr["b"], arr["sfa"], arr["sfb"], arr["c"]), iters=args.iters)
            us = t.median_us
            tflops = plan.flops / us / 1e6
            bar = CUBLAS_H100_US[shape] / 2
            print(f"  {m},{n},{k}: {us:.1f} us  {tflops:.0f} TFLOP/s  (H100 bar <= {bar:.1f} us: "
                  f"{'met' if us <= bar else 'NOT met'}; fp16 floor at 752 TFLOP/s {plan.flops / 752e6:.1f} us)  "
                  f"{plan!r}", flush=True)
    print("ALL PASS" if not bad else f"{bad} FAILED")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
