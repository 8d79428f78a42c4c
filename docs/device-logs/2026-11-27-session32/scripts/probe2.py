"""Session 32, device run 2: the rings (B stages, a16 buffers) of grouped case 1's m-tile plan (stream-K over clusters
of 2, 75 units; default (3, 8)) and of the dual 256x3072x4096 in whole tiles and in stream-K runs of 12 units over
clusters of 1 (probe1's fastest).  Every plan's output is compared bit for bit with the default plan's (grouped) or
checked against the fp64 reference (dual, both distributions).  Whole calls, L2 cleared, best of 3 medians of 40,
three interleaved rounds."""
import sys
import time

import numpy as np

sys.path.insert(0, "tools")
sys.path.insert(0, "docs/device-logs/2026-11-22-session27/scripts")
sys.path.insert(0, "docs/device-logs/2026-11-27-session32/scripts")
from hang_watchdog import Watchdog  # noqa: E402
import nvfp4rt  # noqa: E402
from nvfp4rt import driver, reference  # noqa: E402
from nvfp4rt.bench import get_op, time_op  # noqa: E402
from nvfp4rt.ops import dual_gemm  # noqa: E402
from nvfp4rt.ops import grouped_gemm as GG  # noqa: E402
from nvfp4rt.ops.dual_gemm_tiles import DualGemmTilesPlan  # noqa: E402
from nvfp4rt.ops.grouped_gemm_mtiles import GroupedGemmMTilePlan  # noqa: E402
import exp1h as H  # noqa: E402

wd = Watchdog(200)
FAILS = []
dev = nvfp4rt.device()
print(dev.properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)


def best(f, n=3, iters=40):
    wd.arm("timing")
    r = min(time_op(f, iters=iters).median_us for _ in range(n))
    wd.disarm()
    return r


def rounds(title, plans, call, n=3):
    res = {nm: [] for nm in plans}
    for _ in range(n):
        for nm, p in plans.items():
            res[nm].append(best(lambda p=p: call(p)))
    for nm, p in plans.items():
        print(f"  {title:14s} {nm:14s} " + " ".join(f"{t:7.2f}" for t in res[nm]) + f"   {p!r}", flush=True)


bench = get_op("grouped_gemm")(device=dev)
st = bench.make_inputs({"case": 1}, np.random.default_rng())
layouts = [GG._raw_groups([v])[0][3] for v in st.views]
bench.check(st)
print("  case 1: the auto plan passes the reference check", flush=True)
plans, ref = {}, None
for rings in (None, (2, 8), (3, 6), (2, 6), (4, 6), (3, 7), (2, 7)):
    try:
        if rings is None:
            p = GG.plan_grouped_gemm(st.shapes, layouts=layouts)
        else:
            p = GroupedGemmMTilePlan(st.shapes, layouts, cluster=2, units_per_cluster=75, stages=rings[0],
                                     a_bufs=rings[1])
    except Exception as exc:  # a ring that does not fit the shared memory
        print(f"  case 1 rings {rings}: {type(exc).__name__}: {exc}", flush=True)
        continue
    for arrs in st.dev:
        arrs["c"].fill(np.nan)
    wd.arm(f"case 1 {rings}"); p(st.views); driver.call("cuCtxSynchronize"); wd.disarm()
    outs = [arrs["c"].numpy().copy() for arrs in st.dev]
    ref = outs if ref is None else ref
    same = all(np.array_equal(a.view(np.uint16), b.view(np.uint16)) for a, b in zip(ref, outs))
    print(f"  case 1 rings {rings}: bits {'equal' if same else 'DIFFER'}", flush=True)
    if not same:
        FAILS.append(f"case 1 {rings}")
    plans["default" if rings is None else f"s{rings[0]} a{rings[1]}"] = p
rounds("grouped case 1", plans, lambda p, s=st: p(s.views))

m, n, k = 256, 3072, 4096
plans = {"default": dual_gemm.plan_dual_gemm_silu(m, n, k)}
for upc in (16, 12):
    for rings in ((2, 8), (4, 6), (3, 6)):
        kw = dict(cluster=1, units_per_cluster=upc, stages=rings[0], a_bufs=rings[1])
        try:
            plans[f"upc{upc} s{rings[0]} a{rings[1]}"] = DualGemmTilesPlan(m, n, k, 1, **kw)
        except Exception as exc:
            print(f"  dual {kw}: {type(exc).__name__}: {exc}", flush=True)
plans["upc12"] = DualGemmTilesPlan(m, n, k, 1, cluster=1, units_per_cluster=12)
for nm, p in plans.items():
    for dist in ("competition", "wide"):
        d, args, c = H.dual_args(m, n, k, 1, dist)
        wd.arm(nm); p(*args); driver.call("cuCtxSynchronize"); wd.disarm()
        res = reference.check(c.numpy().transpose(1, 2, 0),
                              reference.dual_gemm_silu_ref(d.a, d.b1, d.b2, d.sfa, d.sfb1, d.sfb2))
        if not res.ok:
            print(f"  dual {nm} {dist}: FAIL {res}", flush=True)
            FAILS.append(f"dual {nm} {dist}")
print(f"  dual: {len(plans)} plans checked in both distributions", flush=True)
d, args, c = H.dual_args(m, n, k, 1, "competition")
rounds("dual 256x3072x4096", plans, lambda p: p(*args))
print("FAILS:", FAILS, "done", time.strftime("%H:%M:%S"), flush=True)
