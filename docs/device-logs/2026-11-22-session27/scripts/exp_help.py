"""Session 27 runs 01 and 06 (RUN=..): the tail helpers (help_tail=X), and stream-K over clusters, against the default
plan, now that the loop is faster.
Kernel alone and whole call, two interleaved rounds, best of 3 medians of 40 (us); every plan checked."""
import os, sys, time
sys.path.insert(0, "tools"); sys.path.insert(0, ".scratch/s27")
from hang_watchdog import Watchdog
import nvfp4rt
from nvfp4rt import driver
from nvfp4rt.bench import time_op
from nvfp4rt.ops.gemm_wgmma_cluster import GemmClusterPlan
import exp1h as H

wd = Watchdog(120)
H.wd = wd
print(nvfp4rt.device().properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)
RUNS = {
    "01": {  # the tail helpers
        (128, 7168, 16384): [dict(), dict(help_tail=4), dict(help_tail=5), dict(help_tail=6), dict(help_tail=7),
                             dict(help_tail=8)],
        (128, 7168, 2048): [dict(), dict(help_tail=1)],
        (128, 4096, 7168): [dict(), dict(help_tail=8), dict(help_tail=10), dict(help_tail=12)],
    },
    "06": {  # stream-K over clusters (A16 multicast with cluster 2) against the K split
        (128, 7168, 16384): [dict(), dict(ksplit=1, cluster=2), dict(ksplit=1, cluster=2, units_per_cluster=28),
                             dict(ksplit=1, cluster=2, units_per_cluster=32), dict(ksplit=1, cluster=2, units_per_cluster=30),
                             dict(ksplit=1, cluster=4), dict(ksplit=1, cluster=1)],
        (128, 7168, 2048): [dict(), dict(ksplit=1, cluster=2), dict(ksplit=1, cluster=2, units_per_cluster=4)],
    },
}
CASES = RUNS[os.environ.get("RUN", "01")]
sel = os.environ.get("SHAPES")
keep = []


def best(f, n=3, iters=40):
    wd.arm("timing")
    r = min(time_op(f, iters=iters).median_us for _ in range(n))
    wd.disarm()
    return r


for (m, n, k), kws in CASES.items():
    if sel and f"{m}x{n}x{k}" not in sel:
        continue
    d, args, c = H.gemm_args(m, n, k, 1, "competition")
    plans = {}
    for kw in kws:
        nm = ",".join(f"{a}={b}" for a, b in kw.items()) or "default"
        try:
            p = GemmClusterPlan(m, n, k, 1, **kw)
        except ValueError as e:
            print(f"  {nm}: {e}")
            continue
        plans[nm] = p
        H.check_gemm(p, m, n, k, 1, f"{m}x{n}x{k} {nm}")
        wd.arm(nm); p(*args); driver.call("cuCtxSynchronize"); wd.disarm()
    keep.append((plans, args, d, c))
    res = {nm: [] for nm in plans}
    whole = {nm: [] for nm in plans}
    for rnd in range(2):
        for nm, p in plans.items():
            whole[nm].append(best(lambda p=p: p(*args)))
        for nm, p in plans.items():
            res[nm].append(best(lambda p=p: p._launch.launch()))
    print(f"{m}x{n}x{k}", flush=True)
    for nm, p in plans.items():
        g = p.geometry
        print(f"  {nm:40s} grid {g.grid} upc {g.units_per_cluster} kernel alone " + "  ".join(f"{a:.2f}" for a in res[nm])
              + "   whole " + "  ".join(f"{a:.2f}" for a in whole[nm]), flush=True)
print("FAILS", H.FAILS)
print("done", time.strftime("%H:%M:%S"), flush=True)
