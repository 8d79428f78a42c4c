"""Session 30, device run 5: where the grouped m-tile plan's cluster-1 runs lose.  Kernel alone, L2 cleared, best of 3
medians of 40.  (a) GEMM 128 x 4096 x 7168 with l = 11 (every batch its own B: the grouped B traffic) against l = 1 x
m = 1408 (one B shared by the 11 m tiles), whole tiles 3 per run, clusters of 1 and 2, and the default schedule;
(b) grouped case 1's shapes at k = 7168 and 3584 (per unit and fixed), whole tiles 3 per run, clusters 1 and 2."""
import sys, time
import numpy as np
sys.path.insert(0, "tools"); sys.path.insert(0, ".scratch/s30")
from hang_watchdog import Watchdog
import nvfp4rt
from nvfp4rt import driver, reference
from nvfp4rt.ops.gemm_wgmma_cluster import GemmClusterPlan
from nvfp4rt.ops import grouped_gemm as GG
from nvfp4rt.ops.grouped_gemm_mtiles import GroupedGemmMTilePlan
import exp1h as H
import s28h

wd = Watchdog(150)
H.wd = s28h.wd = wd
print(nvfp4rt.device().properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)
for (m, n, k, l) in [(1408, 4096, 7168, 1), (128, 4096, 7168, 11)]:
    for kw in ({"cluster": 1, "units_per_cluster": 84}, {"cluster": 2, "units_per_cluster": 84}, {}):
        p = GemmClusterPlan(m, n, k, l, **kw)
        d, args, c = H.gemm_args(m, n, k, l, "competition")
        wd.arm("first"); p(*args); driver.call("cuCtxSynchronize"); wd.disarm()
        t = s28h.best(lambda: p._launch.launch())
        print(f"gemm {m}x{n}x{k} l={l} {str(kw):42s} {t:7.2f} us  {p!r}", flush=True)
MS = [80, 176, 128, 72, 64, 248, 96, 160]
for kw in ({"cluster": 1}, {"cluster": 2}):
    res = []
    for k in (7168, 3584):
        shapes = [(mm, 4096, k) for mm in MS]
        gargs = [H.gemm_args(mm, 4096, k, 1, "competition") for mm in MS]
        groups = [a for (_, a, _) in gargs]
        lays = [GG._raw_groups([a])[0][3] for a in groups]
        p = GroupedGemmMTilePlan(shapes, lays, units_per_cluster=3 * (k // 256), **kw)
        wd.arm("g"); p(groups); driver.call("cuCtxSynchronize"); wd.disarm()
        ok = all(reference.check(c.numpy().transpose(1, 2, 0), reference.gemm_ref(d.a, d.b, d.sfa, d.sfb)).ok
                 for (d, _, c) in gargs)
        t = s28h.best(lambda: p._launch.launch())
        res.append(t)
        print(f"grouped case-1 shapes k={k} {str(kw):16s} upc {3 * (k // 256)}: {t:7.2f} us {'OK' if ok else 'FAIL'}  {p!r}",
              flush=True)
    per = (res[0] - res[1]) / 42
    print(f"  -> per unit {per * 1000:.0f} ns, fixed {res[0] - 84 * per:.2f} us", flush=True)
print("done", time.strftime("%H:%M:%S"), flush=True)
