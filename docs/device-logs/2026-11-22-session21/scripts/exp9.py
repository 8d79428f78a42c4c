"""Session 21, device run 11: with the quarter-tile runs, the tiles' stream-K against the 256-row cluster kernel on
512 x 4096 x 7168 (its even share of 55 becomes 56 = two whole tiles per CTA), and the rule's other changes
(384 x 3072 x 2048: 9 -> 10) against the even share.  Checked; whole call / kernel alone, two interleaved rounds, best
of 3 medians of 40 (us), L2 cleared."""
import sys, time
sys.path.insert(0, "tools"); sys.path.insert(0, ".scratch/s21")
from hang_watchdog import Watchdog
import nvfp4rt
from nvfp4rt.bench import time_op
from nvfp4rt.ops.dual_gemm_tiles import DualGemmTilesPlan
from nvfp4rt.ops.dual_gemm_cluster import DualGemmClusterPlan
import exp1h as H

wd = Watchdog(120)
H.wd = wd
print(nvfp4rt.device().properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)


def best(f, n=3, iters=40):
    wd.arm("timing")
    r = min(time_op(f, iters=iters).median_us for _ in range(n))
    wd.disarm()
    return r


for (m, n, k), extra in [((512, 4096, 7168), {"cluster kernel": lambda: DualGemmClusterPlan(512, 4096, 7168, 1)}),
                         ((384, 3072, 2048), {"even 9": lambda: DualGemmTilesPlan(384, 3072, 2048, 1, cluster=1,
                                                                                  units_per_cluster=9)}),
                         ((256, 4096, 7168), {}), ((256, 3072, 4096), {}), ((512, 3072, 7168), {})]:
    d, args, c = H.dual_args(m, n, k, 1, "competition")
    plans = {"tiles default": DualGemmTilesPlan(m, n, k, 1)}
    plans.update({nm: f() for nm, f in extra.items()})
    for nm, p in plans.items():
        H.check_dual(p, m, n, k, 1, f"{m}x{n}x{k} {nm}")
    res = {nm: [] for nm in plans}
    for rnd in range(2):
        for nm, p in plans.items():
            res[nm].append((best(lambda p=p: p(*args)), best(lambda p=p: p._launch.launch())))
    for nm, p in plans.items():
        print(f"dual {m}x{n}x{k} {nm:14s} whole / kernel: " + "  ".join(f"{a:.2f} / {b:.2f}" for a, b in res[nm])
              + f"   {p!r}", flush=True)
print("FAILS:", H.FAILS, "done", time.strftime("%H:%M:%S"), flush=True)
