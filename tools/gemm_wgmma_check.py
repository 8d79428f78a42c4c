"""GPU check of the Hopper wgmma NVFP4 GEMM (ptx/gemm_nvfp4_wgmma.ptx via nvfp4rt.ops.gemm_wgmma).

    PYTHONPATH=. python3 tools/gemm_wgmma_check.py                # correctness + timings
    PYTHONPATH=. python3 tools/gemm_wgmma_check.py --small        # few small shapes, one launch each
    PYTHONPATH=. python3 tools/gemm_wgmma_check.py --sweep        # every kernel variant on the 3 bench shapes
    compute-sanitizer --tool memcheck python3 tools/gemm_wgmma_check.py --small
    options: --stages S, --units-per-cta U (forces the stream-K split), --normal-operands
             (NORMAL_OPERANDS=1 kernel; subnormal fp16 operands are the default), --wgmma-depth 1|3,
             --tile-n 128|256 (B rows per CTA tile),
             --multicast (refused until implemented), --no-time, --iters N, --info (ptxas resources)

--sweep: the benchmark shapes' data (both distributions, fresh) and references are made once;
then each variant of SWEEP runs in its own child process under a timeout (a hung TMA/mbarrier
pipeline kills only that child and prints TIMEOUT): per shape, PASS/FAIL on both distributions
(NaN-poisoned c) and the median time (time_op, L2 cleared), one line per (variant, shape).
--sweep-only NAME[,NAME...] restricts it; --variant NAME runs one variant's plan options in the
normal (non-sweep) mode.  The cl* variants are the cluster kernel (ptx/gemm_nvfp4_wgmma_cluster.ptx via
nvfp4rt.ops.gemm_wgmma_cluster: A decoded once per call, A16 multicast across `cluster` CTAs).

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


#: kernel variants (GemmWgmmaPlan options) compared by --sweep; see ptx/gemm_nvfp4_wgmma.ptx's header
#: (all with subnormal fp16 operands, NORMAL_OPERANDS=0, unless named _n)
SWEEP = {
    "base": dict(),                                               # consumers decode A one sub-step ahead, 4 stages
    "base_n": dict(normal_operands=True),                         # + the 2^14 HMUL2 per pair (the old default)
    "deep": dict(wgmma_depth=3),                                  # 4 fragment sets, 3 wgmma groups in flight, 4 a16
    "deep_s3": dict(wgmma_depth=3, stages=3),                     # the same with a 3-stage ring
    "deep_s2": dict(wgmma_depth=3, stages=2),
    "wide": dict(tile_n=256),                                     # 256-row B tile, 2 accumulators/warpgroup, 3 stages
    "wide_s2": dict(tile_n=256, stages=2),
    "wide_n": dict(tile_n=256, normal_operands=True),
    "dec4": dict(a_decoder=True, a_bufs=4, stages=3),             # A decoder warpgroup, 4 a16 buffers, 3 stages
    "dec3": dict(a_decoder=True, a_bufs=3, stages=3),
    # the cluster kernel (ptx/gemm_nvfp4_wgmma_cluster.ptx): A decoded once per call, A16 multicast
    "cl1": dict(cluster=1),                                       # no multicast: every CTA loads its A16
    "cl2": dict(cluster=2),                                       # pairs along n share each A16 load (default)
    "cl4": dict(cluster=4),
    "cl2_s5": dict(cluster=2, stages=5),                          # a deeper B ring
    "cl2_b8s3": dict(cluster=2, a_bufs=8, stages=3),              # a deeper a16 ring, shallower B ring
    "cl4_b8s3": dict(cluster=4, a_bufs=8, stages=3),
    "cl1_d3": dict(cluster=1, wgmma_depth=3),                     # three wgmma groups queued per warpgroup
    "cl2_d3": dict(cluster=2, wgmma_depth=3),
    "cl2_d3_b8s3": dict(cluster=2, wgmma_depth=3, a_bufs=8, stages=3),
    "cl4_d3": dict(cluster=4, wgmma_depth=3),
    "w3_cl1": dict(cluster=1, consumer_wgs=3),                    # 192-row tiles, three consumer warpgroups
    "w3_cl2": dict(cluster=2, consumer_wgs=3),
    "w3_cl2_s3b5": dict(cluster=2, consumer_wgs=3, stages=3, a_bufs=5),
    "w3_cl4": dict(cluster=4, consumer_wgs=3),
    # the K split: each tile is one cluster of ksplit CTAs splitting its k, reduced through DSMEM (no stream-K)
    "ks2": dict(cluster=1, ksplit=2),
    "ks4": dict(cluster=1, ksplit=4),
    "ks8": dict(cluster=1, ksplit=8),
}
_CLUSTER_KEYS = ("cluster", "stages", "a_bufs", "units_per_cluster", "wgmma_depth", "consumer_wgs", "ksplit")


def make_plan(m, n, k, l, kw):
    """The plan a SWEEP entry (or the command line's options) describes: a cluster entry has a 'cluster' key."""
    if "cluster" in kw:
        from nvfp4rt.ops.gemm_wgmma_cluster import GemmClusterPlan

        ckw = {key: kw[key] for key in _CLUSTER_KEYS if kw.get(key) is not None}
        if kw.get("units_per_cta") is not None:
            ckw["units_per_cluster"] = kw["units_per_cta"]
        return GemmClusterPlan(m, n, k, l, **ckw)
    return W.GemmWgmmaPlan(m, n, k, l, **kw)
SWEEP_TIMEOUT_S = 60


class _Loaded:
    """GemmData-like view of arrays saved by the sweep parent (physical layouts)."""

    def __init__(self, z):
        self.m, self.n, self.k, self.l = (int(v) for v in z["shape"])
        self._z = z

    def physical(self, name):
        return self._z[name]


def _sweep_data(tmp):
    """Fresh data + references for the bench shapes, both distributions, saved as .npz in tmp."""
    paths = {}
    for shape in BENCH:
        for dist in ("competition", "wide"):
            m, n, k, l = shape
            d = data.gemm_data(m, n, k, l, seed=None, distribution=dist)
            ref = reference.gemm_ref(d.a, d.b, d.sfa, d.sfb)
            p = Path(tmp) / f"{m}_{n}_{k}_{l}_{dist}.npz"
            np.savez(p, shape=np.array(shape), ref=ref,
                     **{nm: np.ascontiguousarray(d.physical(nm)).view(np.uint8) for nm in ("a", "b", "sfa", "sfb")})
            paths[(shape, dist)] = p
    return paths


def _sweep_child(name, tmp, iters):
    """One variant on the bench shapes (runs in a child process); returns the number of failures."""
    from nvfp4rt.bench import time_op

    kw = SWEEP[name]
    bad = 0
    for shape in BENCH:
        m, n, k, l = shape
        oks, plan, arr, note = [], None, None, ""
        for dist in ("competition", "wide"):
            z = np.load(Path(tmp) / f"{m}_{n}_{k}_{l}_{dist}.npz")
            d = _Loaded(z)
            arr = device_arrays(d)
            plan = make_plan(m, n, k, l, kw)
            plan(arr["a"], arr["b"], arr["sfa"], arr["sfb"], arr["c"])
            out = arr["c"].numpy()
            res = reference.check(out.transpose(1, 2, 0), z["ref"])
            oks.append(res.ok)
            if dist == "competition":
                timed = (plan, arr)  # timed on the competition's data
            if not res.ok:
                note += f" [{dist}: {res.report()}]"
        plan, arr = timed
        us = time_op(lambda: plan(arr["a"], arr["b"], arr["sfa"], arr["sfb"], arr["c"]), iters=iters).median_us
        ok = all(oks)
        bad += not ok
        bar = CUBLAS_H100_US[shape] / 2
        print(f"SWEEP {name:9s} {m},{n},{k}: {'PASS' if ok else 'FAIL'} {us:7.1f} us  (bar {bar:.1f}, "
              f"{plan.flops / us / 1e6:.0f} TFLOP/s)  {plan!r}{note}", flush=True)
    return bad


def sweep(names, iters):
    import subprocess
    import tempfile

    bad = 0
    with tempfile.TemporaryDirectory(prefix="wgmma_sweep_") as tmp:
        _sweep_data(tmp)
        for name in names:
            cmd = [sys.executable, str(Path(__file__).resolve()), "--sweep-child", name, "--data", tmp,
                   "--iters", str(iters)]
            try:
                r = subprocess.run(cmd, timeout=SWEEP_TIMEOUT_S, capture_output=True, text=True)
                sys.stdout.write("".join(ln + "\n" for ln in r.stdout.splitlines() if ln.startswith("SWEEP")))
                if r.returncode != 0:
                    bad += 1
                    tail = (r.stderr or r.stdout).strip().splitlines()[-3:]
                    print(f"SWEEP {name:9s} FAIL (exit {r.returncode}): {' | '.join(tail)}", flush=True)
            except subprocess.TimeoutExpired as exc:
                bad += 1
                done = (exc.stdout or b"").decode() if isinstance(exc.stdout, bytes) else (exc.stdout or "")
                sys.stdout.write("".join(ln + "\n" for ln in done.splitlines() if ln.startswith("SWEEP")))
                print(f"SWEEP {name:9s} TIMEOUT after {SWEEP_TIMEOUT_S} s (hang?)", flush=True)
            sys.stdout.flush()
    print("SWEEP ALL PASS" if not bad else f"SWEEP {bad} variant(s) FAILED")
    return 1 if bad else 0


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
    plan = make_plan(m, n, k, l, plan_kwargs)
    plan(arr["a"], arr["b"], arr["sfa"], arr["sfb"], arr["c"])
    out = arr["c"].numpy()
    res = reference.check(out.transpose(1, 2, 0), ref)
    arr["c"].copy_from_host_async(np.full((l, m, n), np.nan, dtype=np.float16))
    plan(arr["a"], arr["b"], arr["sfa"], arr["sfb"], arr["c"])
    again = arr["c"].numpy()
    same = np.array_equal(out.view(np.uint16), again.view(np.uint16))
    ok = res.ok and same
    g = plan.geometry
    upc = getattr(g, "units_per_cta", getattr(g, "units_per_cluster", None))
    print(f"{'PASS' if ok else 'FAIL'} {m},{n},{k},{l} {distribution:11s} grid={g.grid} upc={upc} "
          f"split_tiles={getattr(g, 'split_tiles', '-')}" + ("" if res.ok else f"  {res.report()}")
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
    ap.add_argument("--normal-operands", action="store_true", help="NORMAL_OPERANDS=1 (2^14 multiply per pair)")
    ap.add_argument("--subnormal-operands", action="store_true", help="accepted for old scripts: the default now")
    ap.add_argument("--wgmma-depth", type=int, default=1, choices=W.WGMMA_DEPTHS)
    ap.add_argument("--tile-n", type=int, default=W.TILE, choices=W.TILE_N_CHOICES)
    ap.add_argument("--multicast", action="store_true")
    ap.add_argument("--no-time", action="store_true")
    ap.add_argument("--iters", type=int, default=100)
    ap.add_argument("--info", action="store_true")
    ap.add_argument("-v", "--verbose", action="store_true")
    ap.add_argument("--sweep", action="store_true", help="every variant of SWEEP on the bench shapes")
    ap.add_argument("--sweep-only", help="comma-separated subset of the SWEEP variants")
    ap.add_argument("--variant", choices=sorted(SWEEP), help="plan options of one SWEEP variant")
    ap.add_argument("--sweep-child", help=argparse.SUPPRESS)
    ap.add_argument("--data", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.sweep_child:
        nvfp4rt.device()
        return 1 if _sweep_child(args.sweep_child, args.data, min(args.iters, 50)) else 0
    if args.sweep or args.sweep_only:
        names = list(SWEEP) if not args.sweep_only else args.sweep_only.split(",")
        unknown = [nm for nm in names if nm not in SWEEP]
        if unknown:
            ap.error(f"unknown variant(s) {unknown}; known: {list(SWEEP)}")
        dev = nvfp4rt.device()
        print(f"device: {dev.properties.name}, {dev.properties.sm_count} SMs", flush=True)
        return sweep(names, min(args.iters, 50))

    dev = nvfp4rt.device()
    print(f"device: {dev.properties.name}, {dev.properties.sm_count} SMs", flush=True)
    kw = dict(stages=args.stages, units_per_cta=args.units_per_cta, multicast=args.multicast,
              normal_operands=args.normal_operands, wgmma_depth=args.wgmma_depth, tile_n=args.tile_n)
    if args.variant:
        kw.update(SWEEP[args.variant])
    if args.info and "cluster" not in kw:
        from nvfp4rt.assemble import assemble

        rep = assemble(Path(W.__file__).resolve().parent.parent.parent / "ptx" / "gemm_nvfp4_wgmma.ptx", "sm_90a",
                       W.kernel_constants(kw.get("normal_operands", False), kw.get("a_decoder", False),
                                          kw.get("a_bufs", 4), kw.get("wgmma_depth", 1), kw.get("tile_n", W.TILE)))
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
            plan = make_plan(m, n, k, l, kw)
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
