"""Session 29, device run 9: the L2 policies when L2 is NOT cleared between calls (back-to-back calls of one problem,
where a B that fits in L2 stays there from call to call): the committed template against the text before the
policies, whole call, time_op(clear_l2=False), best of 3 medians of 40, four interleaved rounds.  Shapes: the three
GEMM benchmark shapes, two whose B fits in L2 (128x4096x2048: 4 MB, 256x2048x4096: 4 MB), and the dual 256x3072x4096."""
import sys, time
sys.path.insert(0, "tools"); sys.path.insert(0, ".scratch/s29")
from hang_watchdog import Watchdog
import nvfp4rt
from nvfp4rt import driver
from nvfp4rt.bench import time_op
from nvfp4rt.ops.gemm_wgmma_cluster import GemmClusterPlan
from nvfp4rt.ops.dual_gemm_tiles import DualGemmTilesPlan
from nvfp4rt.ptxsource import render
import exp1h as H
import s28h

wd = Watchdog(150)
H.wd = s28h.wd = wd
print(nvfp4rt.device().properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)
OLD = open(".scratch/s29/gemm_old.ptx").read()


def warm(f):
    wd.arm("warm")
    r = min(time_op(f, iters=40, clear_l2=False).median_us for _ in range(3))
    wd.disarm()
    return r


cases = []
for (m, n, k) in [(128, 7168, 16384), (128, 4096, 7168), (128, 7168, 2048), (128, 4096, 2048), (256, 2048, 4096)]:
    d, args, c = H.gemm_args(m, n, k, 1, "competition")
    new = GemmClusterPlan(m, n, k, 1)
    old = s28h.swap(GemmClusterPlan(m, n, k, 1), render(OLD, "sm_90a", new.constants))
    cases.append((f"gemm {m}x{n}x{k}", {"old": old, "new": new}, args, (d, c)))
d, args, c = H.dual_args(256, 3072, 4096, 1, "competition")
new = DualGemmTilesPlan(256, 3072, 4096, 1)
old = s28h.swap(DualGemmTilesPlan(256, 3072, 4096, 1), render(OLD, "sm_90a", new.constants))
cases.append(("dual 256x3072x4096", {"old": old, "new": new}, args, (d, c)))
for name, plans, args, keep in cases:
    for nm, p in plans.items():
        wd.arm(nm); p(*args); driver.call("cuCtxSynchronize"); wd.disarm()
    res = {nm: [] for nm in plans}
    for rnd in range(4):
        for nm, p in plans.items():
            res[nm].append(warm(lambda p=p, a=args: p(*a)))
    for nm in plans:
        print(f"  {name:20s} {nm:3s} whole, L2 not cleared: " + " ".join(f"{x:.2f}" for x in res[nm]), flush=True)
print("done", time.strftime("%H:%M:%S"), flush=True)
