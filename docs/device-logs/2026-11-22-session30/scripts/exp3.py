"""Session 30, device run 3: the m-tile plan's schedule on grouped cases 1 and 2: the default (stream-K, one wave of
clusters of 2) against whole tiles in runs of several tiles per CTA (cluster 1 or 2, no partials, no reduction) and
stream-K in clusters of 1.  Whole call, L2 cleared, best of 3 medians of 40, three interleaved rounds; every plan
checked against the float64 reference and bit for bit against the default."""
import sys, time
import numpy as np
sys.path.insert(0, "tools"); sys.path.insert(0, ".scratch/s30")
from hang_watchdog import Watchdog
import nvfp4rt
from nvfp4rt import driver
from nvfp4rt.bench import get_op
from nvfp4rt.ops import grouped_gemm as GG, grouped_gemm_cluster as GC
from nvfp4rt.ops.grouped_gemm_mtiles import GroupedGemmMTilePlan
from nvfp4rt.reference import check, gemm_ref
import s28h

wd = Watchdog(200)
s28h.wd = wd
dev = nvfp4rt.device()
print(dev.properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)
VARIANTS = {
    1: {"c1 upc84": dict(cluster=1, units_per_cluster=84), "c2 upc84": dict(cluster=2, units_per_cluster=84),
        "c1 upc75": dict(cluster=1, units_per_cluster=75), "c1 upc84 s4a6": dict(cluster=1, units_per_cluster=84, stages=4, a_bufs=6)},
    2: {"c1 upc48": dict(cluster=1, units_per_cluster=48), "c2 upc48": dict(cluster=2, units_per_cluster=48),
        "c1 upc45": dict(cluster=1, units_per_cluster=45), "c2 upc45": dict(cluster=2, units_per_cluster=45)},
}
bench = get_op("grouped_gemm")(device=dev)
fails = []
for case in (1, 2):
    state = bench.make_inputs({"case": case}, np.random.default_rng())
    layouts = [GG._raw_groups([vw])[0][3] for vw in state.views]
    plans = {"default": GG.plan_grouped_gemm(state.shapes, layouts=layouts)}
    if case == 2:
        plans["mtiles"] = GroupedGemmMTilePlan(state.shapes, layouts)
    for nm, kw in VARIANTS[case].items():
        plans[nm] = GroupedGemmMTilePlan(state.shapes, layouts, **kw)
    refs = [gemm_ref(g.a, g.b, g.sfa, g.sfb) for g in state.host.groups]
    outs = {}
    for nm, p in plans.items():
        for arrs in state.dev:
            arrs["c"].fill(np.nan)
        driver.call("cuCtxSynchronize")
        wd.arm(nm); p(state.views); driver.call("cuCtxSynchronize"); wd.disarm()
        outs[nm] = [arrs["c"].numpy().copy() for arrs in state.dev]
        ok = all(check(o.transpose(1, 2, 0), r).ok for o, r in zip(outs[nm], refs))
        same = all(np.array_equal(a.view(np.uint16), b.view(np.uint16)) for a, b in zip(outs["default"], outs[nm]))
        print(f"  case {case} {nm:14s} ref {'OK' if ok else 'FAIL'}  bits {'equal' if same else 'differ'}  {p!r}", flush=True)
        if not ok:
            fails.append((case, nm))
    res = {nm: [] for nm in plans}
    for rnd in range(3):
        for nm, p in plans.items():
            res[nm].append(s28h.best(lambda p=p: p(state.views)))
    for nm in plans:
        print(f"  case {case} {nm:14s} whole " + " ".join(f"{a:.2f}" for a in res[nm]), flush=True)
print("FAILS:", fails, "done", time.strftime("%H:%M:%S"), flush=True)
