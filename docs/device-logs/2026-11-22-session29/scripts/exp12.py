"""Session 29, device run 13: grouped case 2 (the grouped cluster kernel)
with the copy-out fast path against its text at 61a2e0a; whole call, L2 cleared, best of 3 medians of 40,
interleaved rounds; both plans checked against the float64 reference."""
import sys, time
import numpy as np
sys.path.insert(0, "tools"); sys.path.insert(0, ".scratch/s29")
from hang_watchdog import Watchdog
import nvfp4rt
from nvfp4rt import driver
from nvfp4rt.bench import get_op
from nvfp4rt.module import load
from nvfp4rt.ops import grouped_gemm as GG, grouped_gemm_cluster as GC
from nvfp4rt.ptxsource import render
from nvfp4rt.reference import check, gemm_ref
import s28h

wd = Watchdog(150)
s28h.wd = wd
dev = nvfp4rt.device()
print(dev.properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)
OLD = open(".scratch/s29/grouped_cluster_pol.ptx").read()


def old(p):
    mod = load(render(OLD, "sm_90a", p.constants), target="sm_90a")
    s28h.keep.append(mod)
    k = mod.kernel(GC._ENTRY)
    k.set_max_dynamic_shared(p.shared_mem)
    p.kernel, p._launch, p._repeat = k, None, None
    return p


bench = get_op("grouped_gemm")(device=dev)
fails = []
for case in (2,):
    state = bench.make_inputs({"case": case}, np.random.default_rng())
    print(f"case {case}: {state.shapes}, variant {GG.variant_for(state.shapes)}", flush=True)
    layouts = [GG._raw_groups([vw])[0][3] for vw in state.views]
    plans = {"old": old(GC.GroupedGemmClusterPlan(state.shapes, layouts)),
             "new": GC.GroupedGemmClusterPlan(state.shapes, layouts)}
    for nm, p in plans.items():
        for arrs in state.dev:
            arrs["c"].fill(np.nan)
        driver.call("cuCtxSynchronize")
        wd.arm(nm); p(state.views); driver.call("cuCtxSynchronize"); wd.disarm()
        ok = all(check(arrs["c"].numpy().transpose(1, 2, 0), gemm_ref(g.a, g.b, g.sfa, g.sfb)).ok
                 for arrs, g in zip(state.dev, state.host.groups))
        print(f"  case {case} {nm}: {'OK' if ok else 'FAIL'} {p!r}", flush=True)
        if not ok:
            fails.append(nm)
    outs = {}
    for nm, p in plans.items():
        for arrs in state.dev:
            arrs["c"].fill(np.nan)
        driver.call("cuCtxSynchronize")
        p(state.views); driver.call("cuCtxSynchronize")
        outs[nm] = [arrs["c"].numpy().copy() for arrs in state.dev]
    same = all(np.array_equal(a.view(np.uint16), b.view(np.uint16)) for a, b in zip(outs["old"], outs["new"]))
    print(f"  case {case}: new bits {'equal' if same else 'DIFFER'} to old", flush=True)
    if not same:
        fails.append("bits")
    res = {nm: [] for nm in plans}
    for rnd in range(4):
        for nm, p in plans.items():
            res[nm].append(s28h.best(lambda p=p: p(state.views)))
    for nm in plans:
        print(f"  case {case} {nm:4s} whole " + " ".join(f"{a:.2f}" for a in res[nm]), flush=True)
print("FAILS:", fails, "done", time.strftime("%H:%M:%S"), flush=True)
