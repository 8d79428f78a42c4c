"""Session 30, device run 1: the grouped cluster kernel with fewer unit loops (4 or fewer: ptxas does not serialise
the wgmmas) against the committed 8-loop build, on competition cases 1 and 2; and the m-tile plan on both.
Whole call, L2 cleared, best of 3 medians of 40, three interleaved rounds; every plan checked against the float64
reference, the loop-set builds bit for bit against the committed build."""
import sys, time
import numpy as np
sys.path.insert(0, "tools"); sys.path.insert(0, ".scratch/s30")
from hang_watchdog import Watchdog
import nvfp4rt
from nvfp4rt import driver
from nvfp4rt.bench import get_op
from nvfp4rt.module import load
from nvfp4rt.ops import grouped_gemm as GG, grouped_gemm_cluster as GC
from nvfp4rt.ops.grouped_gemm_mtiles import GroupedGemmMTilePlan
from nvfp4rt.reference import check, gemm_ref
import gvar
import s28h

wd = Watchdog(200)
s28h.wd = wd
dev = nvfp4rt.device()
print(dev.properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)
_tokens = GC.tokens


def loopset_plan(shapes, layouts, S):
    GC.tokens = lambda rows: min(v for v in S if v >= rows)
    try:
        p = GC.GroupedGemmClusterPlan(shapes, layouts)
    finally:
        GC.tokens = _tokens
    mod = load(gvar.rendered(S, p.constants), target="sm_90a")
    s28h.keep.append(mod)
    k = mod.kernel(GC._ENTRY)
    k.set_max_dynamic_shared(p.shared_mem)
    p.kernel, p._launch, p._repeat = k, None, None
    return p


SETS = {1: [(96, 128, 192, 256), (64, 128, 192, 256)], 2: [(96, 160, 192, 224), (64, 96, 160, 224), (64, 128, 192, 256)]}
bench = get_op("grouped_gemm")(device=dev)
fails = []
for case in (2, 1):
    state = bench.make_inputs({"case": case}, np.random.default_rng())
    print(f"case {case}: {state.shapes}, variant {GG.variant_for(state.shapes)}", flush=True)
    layouts = [GG._raw_groups([vw])[0][3] for vw in state.views]
    plans = {"base": GC.GroupedGemmClusterPlan(state.shapes, layouts)}
    for S in SETS[case]:
        plans["L" + "-".join(map(str, S))] = loopset_plan(state.shapes, layouts, S)
    plans["mtiles"] = GroupedGemmMTilePlan(state.shapes, layouts)
    outs = {}
    refs = [gemm_ref(g.a, g.b, g.sfa, g.sfb) for g in state.host.groups]
    for nm, p in plans.items():
        for arrs in state.dev:
            arrs["c"].fill(np.nan)
        driver.call("cuCtxSynchronize")
        wd.arm(nm); p(state.views); driver.call("cuCtxSynchronize"); wd.disarm()
        outs[nm] = [arrs["c"].numpy().copy() for arrs in state.dev]
        ok = all(check(o.transpose(1, 2, 0), r).ok for o, r in zip(outs[nm], refs))
        same = all(np.array_equal(a.view(np.uint16), b.view(np.uint16)) for a, b in zip(outs["base"], outs[nm]))
        print(f"  case {case} {nm:18s} ref {'OK' if ok else 'FAIL'}  bits {'equal' if same else 'differ'} to base  {p!r}",
              flush=True)
        if not ok:
            fails.append((case, nm))
    res = {nm: [] for nm in plans}
    for rnd in range(3):
        for nm, p in plans.items():
            res[nm].append(s28h.best(lambda p=p: p(state.views)))
    for nm in plans:
        print(f"  case {case} {nm:18s} whole " + " ".join(f"{a:.2f}" for a in res[nm]), flush=True)
print("FAILS:", fails, "done", time.strftime("%H:%M:%S"), flush=True)
