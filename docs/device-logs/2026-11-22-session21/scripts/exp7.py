"""Session 21, device run 9: the stream-K run length (units per CTA) of the dual's 512 x 3072 x 7168 (tiles plan,
clusters of 1; the default is ceil(5376 / 132) = 41) and of grouped case 3 (m-tile plan, whole tiles = 16).  A run
of 42 = 1.5 tiles puts every other boundary on a tile edge (64 split tiles instead of about 130).  Checked; whole
call / kernel alone, two interleaved rounds, best of 3 medians of 40 (us), L2 cleared."""
import sys, time
import numpy as np
sys.path.insert(0, "tools"); sys.path.insert(0, ".scratch/s21")
from hang_watchdog import Watchdog
import nvfp4rt
from nvfp4rt import driver
from nvfp4rt.bench import time_op, get_op
from nvfp4rt.ops.dual_gemm_tiles import DualGemmTilesPlan
import exp1h as H

wd = Watchdog(120)
H.wd = wd
dev = nvfp4rt.device()
print(dev.properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)


def best(f, n=3, iters=40):
    wd.arm("timing")
    r = min(time_op(f, iters=iters).median_us for _ in range(n))
    wd.disarm()
    return r


m, n, k = 512, 3072, 7168
d, args, c = H.dual_args(m, n, k, 1, "competition")
plans = {"default": DualGemmTilesPlan(m, n, k, 1)}
for upc in (42, 44, 47, 56):
    plans[f"upc {upc}"] = DualGemmTilesPlan(m, n, k, 1, cluster=1, units_per_cluster=upc)
for nm, p in plans.items():
    H.check_dual(p, m, n, k, 1, f"{m}x{n}x{k} {nm}")
res = {nm: [] for nm in plans}
for rnd in range(2):
    for nm, p in plans.items():
        res[nm].append((best(lambda p=p: p(*args)), best(lambda p=p: p._launch.launch())))
for nm, p in plans.items():
    print(f"dual {m}x{n}x{k} {nm:10s} whole / kernel: " + "  ".join(f"{a:.2f} / {b:.2f}" for a, b in res[nm])
          + f"   {p!r}", flush=True)

from nvfp4rt.ops import grouped_gemm as GG
from nvfp4rt.ops.grouped_gemm_mtiles import GroupedGemmMTilePlan
from nvfp4rt.reference import check, gemm_ref
bench = get_op("grouped_gemm")(device=dev)
state = bench.make_inputs({"case": 3}, np.random.default_rng())
layouts = [GG._raw_groups([v])[0][3] for v in state.views]
plans = {"op default": None}
for kw in ({}, dict(cluster=1, units_per_cluster=15), dict(cluster=1, units_per_cluster=14),
           dict(cluster=1, units_per_cluster=12), dict(cluster=2, units_per_cluster=15)):
    try:
        plans[f"mtiles {kw}"] = GroupedGemmMTilePlan(state.shapes, layouts, **kw)
    except ValueError as e:
        print(f"case 3 {kw}: {e}", flush=True)
for nm, p in plans.items():
    f = (lambda p=p: p(state.views)) if p is not None else (lambda: bench.run(state))
    for arrs in state.dev:
        arrs["c"].fill(np.nan)
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
    print(f"grouped case 3 {nm:45s} whole: " + "  ".join(f"{x:.2f}" for x in res[nm]), flush=True)
print("FAILS:", H.FAILS, "done", time.strftime("%H:%M:%S"), flush=True)
