"""Session 32, device run 1: two schedule probes for issue 6's nearest bars (timing, every plan checked).

A. The dual 256x3072x4096 (96 whole 128-row tiles of 16 units leave 36 SMs idle): the default whole tiles against
   stream-K runs over clusters of 1 (12, 13, 14 units) and clusters of 2 (12, 13 cluster units).  Each plan is
   checked against the fp64 reference in both distributions first.
B. Grouped cases 3 and 4 (m-tile plan): the grouped decode prepass's grid (default: one CTA per 64 items, at most 8
   per SM) against 132, 264 and 528 CTAs; outputs compared bit for bit with the default grid's.
Whole calls, L2 cleared, best of 3 medians of 40, three interleaved rounds (the two-launch modes move single medians
by about 1 us)."""
import sys
import time

import numpy as np

sys.path.insert(0, "tools")
sys.path.insert(0, "docs/device-logs/2026-11-22-session27/scripts")
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
H.wd = wd
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
        print(f"  {title:14s} {nm:12s} " + " ".join(f"{t:6.2f}" for t in res[nm]) + f"   {p!r}", flush=True)


# ---- A: the dual's schedule on 256 x 3072 x 4096
m, n, k = 256, 3072, 4096
plans = {"default": dual_gemm.plan_dual_gemm_silu(m, n, k)}
for cl, upc in [(1, 12), (1, 13), (1, 14), (2, 12), (2, 13)]:
    plans[f"c{cl} upc{upc}"] = DualGemmTilesPlan(m, n, k, 1, cluster=cl, units_per_cluster=upc)
for nm, p in plans.items():
    for dist in ("competition", "wide"):
        d, args, c = H.dual_args(m, n, k, 1, dist)
        wd.arm(nm); p(*args); driver.call("cuCtxSynchronize"); wd.disarm()
        res = reference.check(c.numpy().transpose(1, 2, 0),
                              reference.dual_gemm_silu_ref(d.a, d.b1, d.b2, d.sfa, d.sfb1, d.sfb2))
        print(f"  dual {nm} {dist}: {'OK' if res.ok else 'FAIL ' + str(res)}", flush=True)
        if not res.ok:
            FAILS.append(f"dual {nm} {dist}")
d, args, c = H.dual_args(m, n, k, 1, "competition")
rounds("dual 256x3072x4096", plans, lambda p: p(*args))

# ---- B: the grouped decode's grid on cases 3 and 4
bench = get_op("grouped_gemm")(device=dev)
for case in (3, 4):
    st = bench.make_inputs({"case": case}, np.random.default_rng())
    layouts = [GG._raw_groups([v])[0][3] for v in st.views]
    grids = {}
    ref = None
    bench.check(st)  # raises unless the auto plan's output passes the reference check (NaN-poisoned first)
    print(f"  case {case}: the auto plan passes the reference check", flush=True)
    for g in (None, 132, 264, 528):
        if g is None:
            p = GG.plan_grouped_gemm(st.shapes, layouts=layouts)
        else:
            p = GroupedGemmMTilePlan(st.shapes, layouts)
            p._decode.grid, p._decode._launch = g, None
        for arrs in st.dev:
            arrs["c"].fill(np.nan)
        wd.arm(f"case {case} grid {g}"); p(st.views); driver.call("cuCtxSynchronize"); wd.disarm()
        outs = [arrs["c"].numpy().copy() for arrs in st.dev]
        ref = outs if ref is None else ref
        same = all(np.array_equal(a.view(np.uint16), b.view(np.uint16)) for a, b in zip(ref, outs))
        print(f"  case {case} decode grid {p._decode.grid}: bits {'equal' if same else 'DIFFER'}", flush=True)
        if not same:
            FAILS.append(f"case {case} grid {g}")
        grids[f"grid {p._decode.grid}"] = p
    rounds(f"grouped case {case}", grids, lambda p, s=st: p(s.views))
print("FAILS:", FAILS, "done", time.strftime("%H:%M:%S"), flush=True)
