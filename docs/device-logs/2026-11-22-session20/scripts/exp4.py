"""Session 20, device run 8 (run 7 had 512 x 4096 x 7168 in place of the sweep's other shapes, and a (4, 8) ring that does not fit): with the unit-aligned ring, (a) dual 512 x 3072 x 7168 on the 128-row tiles' stream-K
(clusters of 2, the default rings) against the 256-row cluster kernel the rule picks; (b) grouped case 3's whole
m tiles with 2 or 3 B stages (8 a16 buffers).  Whole call / kernel alone, two interleaved rounds, best of 3 medians."""
import sys, time
import numpy as np
sys.path.insert(0, "tools"); sys.path.insert(0, ".scratch/s20")
from hang_watchdog import Watchdog
import nvfp4rt
from nvfp4rt import driver
from nvfp4rt.bench import time_op, get_op
from nvfp4rt.ops.dual_gemm_cluster import DualGemmClusterPlan
from nvfp4rt.ops.dual_gemm_tiles import DualGemmTilesPlan
import exp1h as H

wd = Watchdog(90)
H.wd = wd
dev = nvfp4rt.device()
print(dev.properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)


def best(f, n=3, iters=40):
    wd.arm("timing")
    r = min(time_op(f, iters=iters).median_us for _ in range(n))
    wd.disarm()
    return r


keep = []
SHAPES = [(512, 3072, 7168), (384, 4096, 7168), (512, 2048, 7168), (768, 3072, 4096), (1024, 2048, 4096), (384, 3072, 2048)]
for (m, n, k) in SHAPES:
    from nvfp4rt.ops import dual_gemm as DG
    print(f"{m}x{n}x{k}: variant_for -> {DG.variant_for(m, n, k, 1)}, k_stages {k // 256}", flush=True)
    d, args, c = H.dual_args(m, n, k, 1, "competition")
    plans = {"cluster kernel": DualGemmClusterPlan(m, n, k, 1), "tiles stream-K c2": DualGemmTilesPlan(m, n, k, 1, cluster=2),
             "tiles stream-K c1": DualGemmTilesPlan(m, n, k, 1, cluster=1), "tiles default": DualGemmTilesPlan(m, n, k, 1)}
    for nm, p in plans.items():
        H.check_dual(p, m, n, k, 1, f"{m}x{n}x{k} {nm}")
    keep.append((plans, args, d, c))
    res = {nm: [] for nm in plans}
    for rnd in range(2):
        for nm, p in plans.items():
            res[nm].append((best(lambda p=p: p(*args)), best(lambda p=p: p._launch.launch())))
    for nm, p in plans.items():
        print(f"dual {m}x{n}x{k} {nm:18s} whole / kernel: " + "  ".join(f"{a:.2f} / {b:.2f}" for a, b in res[nm])
              + f"   {p!r}", flush=True)

# (b) grouped case 3 through the m-tile plan (whole tiles) with explicit rings, checked
from nvfp4rt.ops import grouped_gemm as GG
from nvfp4rt.ops.grouped_gemm_mtiles import GroupedGemmMTilePlan
from nvfp4rt.reference import check, gemm_ref
bench = get_op("grouped_gemm")(device=dev)
rng = np.random.default_rng()
state = bench.make_inputs({"case": 3}, rng)
layouts = [GG._raw_groups([v])[0][3] for v in state.views]
plans = {f"mtiles {st},{ab}": GroupedGemmMTilePlan(state.shapes, layouts, stages=st, a_bufs=ab)
         for st, ab in ((2, 8), (3, 8))}
plans["op default"] = None
for nm, p in plans.items():
    f = (lambda p=p: p(state.views)) if p is not None else (lambda: bench.run(state))
    for arrs in state.dev:
        arrs["c"].fill(np.nan)  # poisoned: every output must be written
    driver.call("cuCtxSynchronize")
    f(); driver.call("cuCtxSynchronize")
    ok = all(check(arrs["c"].numpy().transpose(1, 2, 0), gemm_ref(g.a, g.b, g.sfa, g.sfb)).ok
             for arrs, g in zip(state.dev, state.host.groups))
    print(f"case 3 {nm}: {'OK' if ok else 'FAIL'} {p!r}", flush=True)
res = {nm: [] for nm in plans}
for rnd in range(2):
    for nm, p in plans.items():
        f = (lambda p=p: p(state.views)) if p is not None else (lambda: bench.run(state))
        res[nm].append(best(f))
for nm in plans:
    print(f"grouped case 3 {nm:12s} whole: " + "  ".join(f"{x:.2f}" for x in res[nm]), flush=True)
print("FAILS:", H.FAILS, "done", time.strftime("%H:%M:%S"), flush=True)
