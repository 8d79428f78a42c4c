"""GPU check of the SiLU-gated NVFP4 dual GEMM: the first kernel (ptx/dual_gemm_nvfp4_wgmma.ptx,
nvfp4rt.ops.dual_gemm.DualGemmPlan), the cluster kernel (ptx/dual_gemm_nvfp4_wgmma_cluster.ptx,
nvfp4rt.ops.dual_gemm_cluster.DualGemmClusterPlan) and the cluster GEMM's DUAL build on 128-row tiles
(nvfp4rt.ops.dual_gemm_tiles.DualGemmTilesPlan).

    PYTHONPATH=. python3 tools/dual_gemm_check.py                 # correctness + timings
    PYTHONPATH=. python3 tools/dual_gemm_check.py --small         # few small shapes (compute-sanitizer)
    compute-sanitizer --tool memcheck python3 tools/dual_gemm_check.py --small
    PYTHONPATH=. python3 tools/dual_gemm_check.py --sweep         # variants on the competition shapes
    options: --kernel auto|first|cluster|tiles (auto: the op layer's choice per shape, nvfp4rt.ops.dual_gemm.
             variant_for), --stages S, --units-per-cta U (forces the stream-K split; per cluster for the
             cluster kernel), --normal-operands, --wgmma-depth 1|3 (first kernel), --cluster 2|4,
             --a-bufs 3|4 (cluster kernel), --no-time, --iters N, --timeout SECONDS (per shape; default
             60), --info (ptxas resources), -v

--sweep: for each kernel variant (first = the first kernel as the op layer ran it before the cluster
kernel; first_deep = its wgmma_depth=3; cl2 = the cluster kernel's default, clusters of 2; cl4 =
clusters of 4; cl2_b3s5 = 3 a16 buffers and 5 stages; cl2_s2 = 2 stages; tiles = the 128-row DUAL build with
its plan's schedule) the competition shapes are
checked (both distributions) and timed; one line per variant and shape, then a table.

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
from nvfp4rt.ops import dual_gemm_cluster as DC  # noqa: E402

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


def make_plan(shape, kernel, kw):
    """The plan of ``kernel`` ('first', 'cluster' or 'auto') with the options that apply to it."""
    m, n, k, l = shape
    if kernel == "auto":
        kernel = {"wgmma_cluster": "cluster", "wgmma_tiles": "tiles"}.get(D.variant_for(m, n, k, l), "first")
    if kernel == "tiles":
        from nvfp4rt.ops.dual_gemm_tiles import DualGemmTilesPlan

        opts = {x: kw[x] for x in ("stages", "cluster") if kw.get(x) is not None}
        if kw.get("units_per_cta") is not None:
            opts["units_per_cluster"] = kw["units_per_cta"]
        return DualGemmTilesPlan(m, n, k, l, **opts)
    if kernel == "cluster":
        opts = {x: kw[x] for x in ("stages", "cluster", "a_bufs") if kw.get(x) is not None}
        if kw.get("units_per_cta") is not None:
            opts["units_per_cluster"] = kw["units_per_cta"]
        return DC.DualGemmClusterPlan(m, n, k, l, **opts)
    opts = {x: kw[x] for x in ("stages", "units_per_cta", "normal_operands", "wgmma_depth") if kw.get(x) is not None}
    return D.DualGemmPlan(m, n, k, l, **opts)


def _split(plan):
    g = plan.geometry
    if isinstance(plan, DC.DualGemmClusterPlan):
        return f"grid={g.grid} upc={g.units_per_cluster} (per cluster of {g.cluster})"
    return f"grid={g.grid} upc={g.units_per_cta} split_tiles={g.split_tiles}"


def check_shape(shape, distribution, plan_kwargs, verbose, prefix="", kernel="auto"):
    m, n, k, l = shape
    d = data.dual_gemm_data(m, n, k, l, seed=None, distribution=distribution)
    ref = reference.dual_gemm_silu_ref(d.a, d.b1, d.b2, d.sfa, d.sfb1, d.sfb2)
    arr = device_arrays(d)
    plan = make_plan(shape, kernel, plan_kwargs)
    args = [arr[x] for x in NAMES] + [arr["c"]]
    plan(*args)
    out = arr["c"].numpy()
    res = reference.check(out.transpose(1, 2, 0), ref)
    arr["c"].copy_from_host_async(np.full((l, m, n), np.nan, dtype=np.float16))
    plan(*args)
    again = arr["c"].numpy()
    same = np.array_equal(out.view(np.uint16), again.view(np.uint16))
    ok = res.ok and same
    print(f"{'PASS' if ok else 'FAIL'} {prefix}{m},{n},{k},{l} {distribution:11s} {_split(plan)}" + ("" if res.ok else f"  {res.report()}")
          + ("" if same else "  second launch differs (non-deterministic or counters not reset)"), flush=True)
    if verbose and not res.ok:
        bad = ~np.isclose(out.transpose(1, 2, 0).astype(np.float64), ref, rtol=1e-3, atol=1e-3)
        print("   first bad (m, n, l):", [tuple(int(x) for x in i) for i in np.argwhere(bad)[:8]])
    return ok


SWEEP = {"first": ("first", {}), "first_deep": ("first", dict(wgmma_depth=3)), "cl2": ("cluster", {}),
         "cl4": ("cluster", dict(cluster=4)), "cl2_b3s5": ("cluster", dict(a_bufs=3, stages=5)),
         "cl2_s2": ("cluster", dict(stages=2)), "tiles": ("tiles", {})}


def time_shape(shape, kw, iters, dog, kernel="auto"):
    from nvfp4rt.bench import time_op

    m, n, k, l = shape
    d = data.dual_gemm_data(m, n, k, l, seed=None)
    arr = device_arrays(d)
    plan = make_plan(shape, kernel, kw)
    call_args = [arr[x] for x in NAMES] + [arr["c"]]
    dog.arm(f"timing {shape}")
    t = time_op(lambda: plan(*call_args), iters=iters)
    dog.disarm()
    return t.median_us, plan


def sweep(args, dog) -> int:
    bad, table = 0, {}
    for name, (kernel, extra) in SWEEP.items():
        kw = dict(stages=args.stages, units_per_cta=args.units_per_cta)
        kw.update(extra)
        for shape in BENCH:
            ok = True
            for dist in ("competition", "wide"):
                dog.arm(f"{name} {shape} {dist}")
                try:
                    ok &= check_shape(shape, dist, kw, args.verbose, prefix=f"[{name}] ", kernel=kernel)
                except Exception as exc:
                    ok = False
                    print(f"FAIL [{name}] {shape} {dist}: {type(exc).__name__}: {exc}", flush=True)
                dog.disarm()
            bad += not ok
            try:
                us, plan = time_shape(shape, kw, args.iters, dog, kernel)
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
    ap.add_argument("--kernel", choices=("auto", "first", "cluster", "tiles"), default="auto")
    ap.add_argument("--cluster", type=int, choices=DC.CLUSTER_SIZES)
    ap.add_argument("--a-bufs", type=int, choices=DC.A_BUFS_CHOICES)
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
              wgmma_depth=args.wgmma_depth, cluster=args.cluster, a_bufs=args.a_bufs)
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
                ok = check_shape(shape, dist, kw, args.verbose, kernel=args.kernel)
            except Exception as exc:  # one broken shape must not hide the others
                ok = False
                print(f"FAIL {shape} {dist}: {type(exc).__name__}: {exc}", flush=True)
            dog.disarm()
            bad += not ok
    if not args.small and not args.no_time:
        print("timings (median, L2 cleared before each call):", flush=True)
        for shape in BENCH:
            m, n, k, l = shape
            us, plan = time_shape(shape, kw, args.iters, dog, args.kernel)
            print(f"  {m},{n},{k}: {us:.1f} us  {plan.flops / us / 1e6:.0f} TFLOP/s  "
                  f"(75% of ceiling: <= {FLOOR_H100_US[shape] / 0.75:.1f} us "
                  f"{'met' if us <= FLOOR_H100_US[shape] / 0.75 else 'NOT met'}; "
                  f"cuBLAS best path {CUBLAS_H100_US[shape]:.1f} us "
                  f"{'beaten' if us < CUBLAS_H100_US[shape] else 'NOT beaten'})  {plan!r}", flush=True)
    print("ALL PASS" if not bad else f"{bad} FAILED")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
