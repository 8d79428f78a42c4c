"""Session 30, device run 11: the committed stream-K hand-off (49d7343: only thread 0 fences at gpu scope) against the
text before it (6dabe84), on the paths that hand partials over: GEMM 128x4096x7168 (K-split pairs), grouped case 1 (m
tiles), case 2 (grouped cluster kernel), the dual cluster kernel on 512x4096x7168 and 512x3072x7168; controls without a
hand-off: GEMM 128x7168x16384 (K split) and the dual tiles 256x4096x7168 (whole tiles).  Whole call, L2 cleared, best
of 3 medians of 40, three interleaved rounds; bits compared with the old text, every new output with the reference."""
import sys, time
import numpy as np
sys.path.insert(0, "tools"); sys.path.insert(0, ".scratch/s30")
from hang_watchdog import Watchdog
import nvfp4rt
from nvfp4rt import driver, reference
from nvfp4rt.bench import get_op
from nvfp4rt.module import load
from nvfp4rt.ops import grouped_gemm as GG, grouped_gemm_cluster as GC, dual_gemm_cluster as DC
from nvfp4rt.ops.gemm_wgmma_cluster import GemmClusterPlan
from nvfp4rt.ops.dual_gemm_tiles import DualGemmTilesPlan
from nvfp4rt.ops.grouped_gemm_mtiles import GroupedGemmMTilePlan
from nvfp4rt.ptxsource import render
import exp1h as H
import s28h

wd = Watchdog(150)
H.wd = s28h.wd = wd
dev = nvfp4rt.device()
print(dev.properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)
OLD = {nm: open(f".scratch/s30/old_{nm}.ptx").read() for nm in
       ("gemm_nvfp4_wgmma_cluster", "grouped_gemm_nvfp4_wgmma_cluster", "dual_gemm_nvfp4_wgmma_cluster")}
FAILS = []


def swap_entry(p, text, entry):
    mod = load(render(text, "sm_90a", p.constants), target="sm_90a")
    s28h.keep.append(mod)
    k = mod.kernel(entry)
    k.set_max_dynamic_shared(p.shared_mem)
    p.kernel, p._launch, p._repeat = k, None, None
    return p


def ab(name, make, old, call, outs, refs):
    plans = {"new": make(), "old": old(make())}
    got = {}
    for nm, p in plans.items():
        outs(clear=True)
        driver.call("cuCtxSynchronize")
        wd.arm(nm); call(p); driver.call("cuCtxSynchronize"); wd.disarm()
        got[nm] = [o.copy() for o in outs()]
    ok = all(reference.check(o.transpose(1, 2, 0) if o.ndim == 3 else o[..., None], r).ok for o, r in zip(got["new"], refs()))
    same = all(np.array_equal(a.view(np.uint16), b.view(np.uint16)) for a, b in zip(got["new"], got["old"]))
    print(f"  {name}: new {'ref OK' if ok else 'ref FAIL'}, bits {'equal' if same else 'DIFFER'} to old   {plans['new']!r}", flush=True)
    if not (ok and same):
        FAILS.append(name)
    res = {nm: [] for nm in plans}
    for rnd in range(3):
        for nm, p in plans.items():
            res[nm].append(s28h.best(lambda p=p: call(p)))
    for nm in plans:
        print(f"  {name:24s} {nm:4s} whole " + " ".join(f"{a:.2f}" for a in res[nm]), flush=True)


def cl_old(p):
    return s28h.swap(p, render(OLD["gemm_nvfp4_wgmma_cluster"], "sm_90a", p.constants))


for (m, n, k) in [(128, 4096, 7168), (128, 7168, 16384)]:
    d, args, c = H.gemm_args(m, n, k, 1, "competition")
    ab(f"gemm {m}x{n}x{k}", lambda m=m, n=n, k=k: GemmClusterPlan(m, n, k, 1), cl_old, lambda p, a=args: p(*a),
       lambda clear=False, c=c: (c.fill(np.nan), [])[1] if clear else [c.numpy()],
       lambda d=d: [reference.gemm_ref(d.a, d.b, d.sfa, d.sfb)])
for (m, n, k) in [(256, 4096, 7168)]:
    d, args, c = H.dual_args(m, n, k, 1, "competition")
    ab(f"dual tiles {m}x{n}x{k}", lambda m=m, n=n, k=k: DualGemmTilesPlan(m, n, k, 1), cl_old, lambda p, a=args: p(*a),
       lambda clear=False, c=c: (c.fill(np.nan), [])[1] if clear else [c.numpy()],
       lambda d=d: [reference.dual_gemm_silu_ref(d.a, d.b1, d.b2, d.sfa, d.sfb1, d.sfb2)])
for (m, n, k) in [(512, 4096, 7168), (512, 3072, 7168)]:
    d, args, c = H.dual_args(m, n, k, 1, "competition")
    ab(f"dual cluster {m}x{n}x{k}", lambda m=m, n=n, k=k: DC.DualGemmClusterPlan(m, n, k, 1),
       lambda p: swap_entry(p, OLD["dual_gemm_nvfp4_wgmma_cluster"], DC._ENTRY), lambda p, a=args: p(*a),
       lambda clear=False, c=c: (c.fill(np.nan), [])[1] if clear else [c.numpy()],
       lambda d=d: [reference.dual_gemm_silu_ref(d.a, d.b1, d.b2, d.sfa, d.sfb1, d.sfb2)])
bench = get_op("grouped_gemm")(device=dev)
for case in (1, 2):
    state = bench.make_inputs({"case": case}, np.random.default_rng())
    layouts = [GG._raw_groups([vw])[0][3] for vw in state.views]

    def outs(clear=False, state=state):
        if clear:
            for arrs in state.dev:
                arrs["c"].fill(np.nan)
            return []
        return [arrs["c"].numpy() for arrs in state.dev]
    refs = lambda state=state: [reference.gemm_ref(g.a, g.b, g.sfa, g.sfb) for g in state.host.groups]
    if case == 1:
        ab("grouped case 1", lambda: GroupedGemmMTilePlan(state.shapes, layouts), cl_old, lambda p: p(state.views), outs, refs)
    else:
        ab("grouped case 2", lambda: GC.GroupedGemmClusterPlan(state.shapes, layouts),
           lambda p: swap_entry(p, OLD["grouped_gemm_nvfp4_wgmma_cluster"], GC._ENTRY), lambda p: p(state.views), outs, refs)
print("FAILS:", FAILS, "done", time.strftime("%H:%M:%S"), flush=True)
