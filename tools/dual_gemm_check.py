"""GPU check of the SiLU-gated NVFP4 dual GEMM (ptx/dual_gemm_nvfp4_wgmma.ptx via nvfp4rt.ops.dual_gemm).

    PYTHONPATH=. python3 tools/dual_gemm_check.py                 # correctness + timings
    PYTHONPATH=. python3 tools/dual_gemm_check.py --small         # few small shapes (compute-sanitizer)
    compute-sanitizer --tool memcheck python3 tools/dual_gemm_check.py --small
    PYTHONPATH=. python3 tools/dual_gemm_check.py --sweep         # variants on the competition shapes
    options: --stages S, --units-per-cta U (forces the stream-K split), --normal-operands,
             --wgmma-depth 1|3, --no-time, --iters N, --timeout SECONDS (per shape; default 60),
             --info (ptxas resources), -v

--sweep: for each kernel variant (base = subnormal operands, wgmma depth 1, the default; normal =
normal_operands=True; deep = wgmma_depth=3; deep_s3 = depth 3 with 3 stages) the competition shapes
are checked (both distributions) and timed; one line per variant and shape, then a table.

For every shape and both distributions: fresh data (nvfp4rt.data.dual_gemm_data, seed=None), c
poisoned with NaN, one launch, compare with nvfp4rt.reference.dual_gemm_silu_ref (the
competition's tolerance), then a second launch into a re-poisoned c that must be bit-identical.
Prints PASS/FAIL per line; exit 1 on any FAIL.  A watchdog thread ends the process (exit 3, a
"FAIL ... TIMEOUT" line) when one shape takes longer than --timeout: a TMA / mbarrier bug hangs
the GPU rather than failing.  The competition shapes are then timed with nvfp4rt.bench.time_op
(L2 cleared before each call, median) against the issue's bars (75% of the 752 TFLOP/s fp16
ceiling; the cuBLAS fp16 best path of FACTS section 4).
"""
import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402
from hang_watchdog import Watchdog  # noqa: E402  (tools/ is on sys.path when a tool runs)

import nvfp4rt  # noqa: E402
from nvfp4rt import data, reference  # noqa: E402
from nvfp4rt.ops import dual_gemm as D  # noqa: E402

BENCH = [(256, 4096, 7168, 1), (512, 4096, 7168, 1), (256, 3072, 4096, 1), (512, 3072, 7168, 1)]
CUBLAS_H100_US = dict(zip(BENCH, (70.3, 102.3, 41.4, 81.0)))
FLOOR_H100_US = dict(zip(BENCH, (40.0, 80.0, 17.1, 60.0)))
AWKWARD = [(1, 1, 64, 1), (100, 130, 320, 1), (257, 65, 1088, 2), (64, 7, 960, 1), (513, 200, 256, 1),
           (128, 64, 256, 1), (300, 1000, 2048, 1), (96, 4096, 7168, 1)]
SMALL = [(1, 1, 64, 1), (100, 130, 320, 1), (129, 64, 256, 2), (256, 192, 1024, 1)]
NAMES = ("a", "b1", "b2", "sfa", "sfb1", "sfb2")


def device_arrays(d):
    out = {name: nvfp4rt.from_numpy(np.ascontiguousarray(d.physical(name)).view(np.uint8)) for name in NAMES}
    out["c"] = nvfp4rt.from_numpy(np.full((d.l, d.m, d.n), np.nan, dtype=np.float16))
    return out


def check_shape(shape, distribution, plan_kwargs, verbose, prefix=""):
    m, n, k, l = shape
    d = data.dual_gemm_data(m, n, k, l, seed=None, distribution=distribution)
    ref = reference.dual_gemm_silu_ref(d.a, d.b1, d.b2, d.sfa, d.sfb1, d.sfb2)
    arr = device_arrays(d)
    plan = D.DualGemmPlan(m, n, k, l, **plan_kwargs)
    args = [arr[x] for x in NAMES] + [arr["c"]]
    plan(*args)
    out = arr["c"].numpy()
    res = reference.check(out.transpose(1, 2, 0), ref)
    arr["c"].copy_from_host_async(np.full((l, m, n), np.nan, dtype=np.float16))
    plan(*args)
    again = arr["c"].numpy()
    same = np.array_equal(out.view(np.uint16), again.view(np.uint16))
    ok = res.ok and same
    g = plan.geometry
    print(f"{'PASS' if ok else 'FAIL'} {prefix}{m},{n},{k},{l} {distribution:11s} grid={g.grid} upc={g.units_per_cta} "
          f"split_tiles={g.split_tiles}" + ("" if res.ok else f"  {res.report()}")
          + ("" if same else "  second launch differs (non-deterministic or counters not reset)"), flush=True)
    if verbose and not res.ok:
        bad = ~np.isclose(out.transpose(1, 2, 0).astype(np.float64), ref, rtol=1e-3, atol=1e-3)
        print("   first bad (m, n, l):", [tuple(int(x) for x in i) for i in np.argwhere(bad)[:8]])
    return ok


SWEEP = {"base": {}, "normal": dict(normal_operands=True), "deep": dict(wgmma_depth=3),
         "deep_s3": dict(wgmma_depth=3, stages=3)}


def time_shape(shape, kw, iters, dog):
    from nvfp4rt.bench import time_op

    m, n, k, l = shape
    d = data.dual_gemm_data(m, n, k, l, seed=None)
    arr = device_arrays(d)
    plan = D.DualGemmPlan(m, n, k, l, **kw)
    call_args = [arr[x] for x in NAMES] + [arr["c"]]
    dog.arm(f"timing {shape}")
    t = time_op(lambda: plan(*call_args), iters=iters)
    dog.disarm()
    return t.median_us, plan


def sweep(args, dog) -> int:
    bad, table = 0, {}
    for name, extra in SWEEP.items():
        kw = dict(stages=args.stages, units_per_cta=args.units_per_cta)
        kw.update(extra)
        for shape in BENCH:
            ok = True
            for dist in ("competition", "wide"):
                dog.arm(f"{name} {shape} {dist}")
                try:
                    ok &= check_shape(shape, dist, kw, args.verbose, prefix=f"[{name}] ")
                except Exception as exc:
                    ok = False
                    print(f"FAIL [{name}] {shape} {dist}: {type(exc).__name__}: {exc}", flush=True)
                dog.disarm()
            bad += not ok
            try:
                us, plan = time_shape(shape, kw, args.iters, dog)
                table[name, shape] = f"{us:7.1f}" + ("" if ok else "!")
                print(f"  [{name}] {shape[0]},{shape[1]},{shape[2]}: {us:.1f} us  {plan!r}", flush=True)
            except Exception as exc:
                table[name, shape] = "    err"
                print(f"  [{name}] {shape}: timing failed: {type(exc).__name__}: {exc}", flush=True)
    print("sweep (median us, L2 cleared; ! = a correctness FAIL):")
    print("  variant  " + "  ".join(f"{m}x{n}x{k}".rjust(15) for m, n, k, _ in BENCH))
    for name in SWEEP:
        print(f"  {name:8s} " + "  ".join(table.get((name, s), "").rjust(15) for s in BENCH))
    print("  cuBLAS   " + "  ".join(f"{CUBLAS_H100_US[s]:7.1f}".rjust(15) for s in BENCH) + "   (H100, FACTS)")
    print("ALL PASS" if not bad else f"{bad} FAILED")
    return 1 if bad else 0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--small", action="store_true")
    ap.add_argument("--sweep", action="store_true")
    ap.add_argument("--normal-operands", action="store_true")
    ap.add_argument("--wgmma-depth", type=int, choices=D.WGMMA_DEPTHS, default=1)
    ap.add_argument("--stages", type=int)
    ap.add_argument("--units-per-cta", type=int)
    ap.add_argument("--no-time", action="store_true")
    ap.add_argument("--iters", type=int, default=100)
    ap.add_argument("--timeout", type=float, default=60.0)
    ap.add_argument("--info", action="store_true")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args(argv)

    dog = Watchdog(args.timeout)
    dev = nvfp4rt.device()
    print(f"device: {dev.properties.name}, {dev.properties.sm_count} SMs", flush=True)
    if args.sweep:
        return sweep(args, dog)
    kw = dict(stages=args.stages, units_per_cta=args.units_per_cta, normal_operands=args.normal_operands,
              wgmma_depth=args.wgmma_depth)
    if args.info:
        from nvfp4rt.assemble import assemble

        rep = assemble(Path(__file__).resolve().parent.parent / "ptx" / "dual_gemm_nvfp4_wgmma.ptx", "sm_90a",
                       D.kernel_constants(args.normal_operands, args.wgmma_depth))
        print(rep.log.strip())
    bad = 0
    for shape in (SMALL if args.small else BENCH + AWKWARD):
        for dist in ("competition", "wide"):
            dog.arm(f"{shape} {dist}")
            try:
                ok = check_shape(shape, dist, kw, args.verbose)
            except Exception as exc:  # one broken shape must not hide the others
                ok = False
                print(f"FAIL {shape} {dist}: {type(exc).__name__}: {exc}", flush=True)
            dog.disarm()
            bad += not ok
    if not args.small and not args.no_time:
        print("timings (median, L2 cleared before each call):", flush=True)
        for shape in BENCH:
            m, n, k, l = shape
            us, plan = time_shape(shape, kw, args.iters, dog)
            print(f"  {m},{n},{k}: {us:.1f} us  {plan.flops / us / 1e6:.0f} TFLOP/s  "
                  f"(75% of ceiling: <= {FLOOR_H100_US[shape] / 0.75:.1f} us "
                  f"{'met' if us <= FLOOR_H100_US[shape] / 0.75 else 'NOT met'}; "
                  f"cuBLAS best path {CUBLAS_H100_US[shape]:.1f} us "
                  f"{'beaten' if us < CUBLAS_H100_US[shape] else 'NOT beaten'})  {plan!r}", flush=True)
    print("ALL PASS" if not bad else f"{bad} FAILED")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
