"""Session 21, device run 10: the dual tiles' stream-K run length on m > 256 shapes: the even share (the default)
against the smallest multiple of half a tile's and of a quarter tile's stages at or above it.  Checked; whole call /
kernel alone, two interleaved rounds, best of 3 medians of 40 (us), L2 cleared."""
import sys, time
sys.path.insert(0, "tools"); sys.path.insert(0, ".scratch/s21")
from hang_watchdog import Watchdog
import nvfp4rt
from nvfp4rt.bench import time_op
from nvfp4rt.ops.dual_gemm_tiles import DualGemmTilesPlan
import exp1h as H

wd = Watchdog(120)
H.wd = wd
print(nvfp4rt.device().properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)


def best(f, n=3, iters=40):
    wd.arm("timing")
    r = min(time_op(f, iters=iters).median_us for _ in range(n))
    wd.disarm()
    return r


for (m, n, k) in [(512, 3072, 7168), (384, 4096, 7168), (640, 3072, 4096), (768, 3072, 4096), (384, 3072, 7168),
                  (768, 2048, 7168)]:
    d, args, c = H.dual_args(m, n, k, 1, "competition")
    base = DualGemmTilesPlan(m, n, k, 1)
    g = base.geometry
    kb, even = g.k_stages, g.units_per_cluster
    plans = {f"default {even}": base}
    for name, step in (("half", kb // 2), ("quarter", kb // 4)):
        if step and kb % (kb // step) == 0:
            upc = -(-even // step) * step
            if upc != even and f"{upc}" not in " ".join(plans):
                plans[f"{name} {upc}"] = DualGemmTilesPlan(m, n, k, 1, cluster=1, units_per_cluster=upc)
    for nm, p in plans.items():
        H.check_dual(p, m, n, k, 1, f"{m}x{n}x{k} {nm}")
    res = {nm: [] for nm in plans}
    for rnd in range(2):
        for nm, p in plans.items():
            res[nm].append((best(lambda p=p: p(*args)), best(lambda p=p: p._launch.launch())))
    for nm, p in plans.items():
        print(f"dual {m}x{n}x{k} {nm:12s} whole / kernel: " + "  ".join(f"{a:.2f} / {b:.2f}" for a, b in res[nm])
              + f"   {p!r}", flush=True)
print("FAILS:", H.FAILS, "done", time.strftime("%H:%M:%S"), flush=True)
