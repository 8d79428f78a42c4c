"""Session 21, device run 13: grouped case 1 (11 m tiles, n 4096, k 7168) on the m-tile plan, whose stream-K runs
are the even share (75 units over 66 clusters of 2); runs ending on a quarter tile (77 = 2.75 tiles) and clusters of
1.  Checked (NaN-poisoned c, reference); whole call, two interleaved rounds, best of 3 medians of 40 (us), L2
cleared."""
import sys, time
import numpy as np
sys.path.insert(0, "tools"); sys.path.insert(0, ".scratch/s21")
from hang_watchdog import Watchdog
import nvfp4rt
from nvfp4rt import driver
from nvfp4rt.bench import time_op, get_op
from nvfp4rt.ops import grouped_gemm as GG
from nvfp4rt.ops.grouped_gemm_mtiles import GroupedGemmMTilePlan
from nvfp4rt.reference import check, gemm_ref

wd = Watchdog(150)
dev = nvfp4rt.device()
print(dev.properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)


def best(f, n=3, iters=40):
    wd.arm("timing")
    r = min(time_op(f, iters=iters).median_us for _ in range(n))
    wd.disarm()
    return r


bench = get_op("grouped_gemm")(device=dev)
for case, cfgs in [(1, [{}, dict(cluster=2, units_per_cluster=77), dict(cluster=2, units_per_cluster=84),
                        dict(cluster=1, units_per_cluster=75), dict(cluster=1, units_per_cluster=77)])]:
    state = bench.make_inputs({"case": case}, np.random.default_rng())
    layouts = [GG._raw_groups([v])[0][3] for v in state.views]
    plans = {f"{kw}": GroupedGemmMTilePlan(state.shapes, layouts, **kw) for kw in cfgs}
    for nm, p in plans.items():
        for arrs in state.dev:
            arrs["c"].fill(np.nan)
        driver.call("cuCtxSynchronize")
        wd.arm(nm); p(state.views); driver.call("cuCtxSynchronize"); wd.disarm()
        ok = all(check(arrs["c"].numpy().transpose(1, 2, 0), gemm_ref(g.a, g.b, g.sfa, g.sfb)).ok
                 for arrs, g in zip(state.dev, state.host.groups))
        print(f"case {case} {nm}: {'OK' if ok else 'FAIL'} {p!r}", flush=True)
    res = {nm: [] for nm in plans}
    for rnd in range(2):
        for nm, p in plans.items():
            res[nm].append(best(lambda p=p: p(state.views)))
    for nm in plans:
        print(f"grouped case {case} {nm:45s} whole: " + "  ".join(f"{x:.2f}" for x in res[nm]), flush=True)
print("done", time.strftime("%H:%M:%S"), flush=True)
