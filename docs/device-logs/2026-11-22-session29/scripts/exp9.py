"""Session 29, device run 10: the decode prepass beside the K split's CTAs.  The K split's CTAs take 384 x 120
registers, so 1-2 decode CTAs (256 x 32 registers each) fit beside one if the SM keeps its shared-memory carveout at
the maximum.  Variants of the decode launch on the GEMM plans (whole call, L2 cleared, best of 3 medians of 40, four
interleaved rounds): default grid (8 per SM) with the default carveout (base) and with carveout 100 (c100); 132 and
264 CTAs (1 and 2 per SM) with carveout 100 (g132, g264)."""
import sys, time
sys.path.insert(0, "tools"); sys.path.insert(0, ".scratch/s29")
from hang_watchdog import Watchdog
import nvfp4rt
from nvfp4rt import driver
from nvfp4rt.ops.gemm_wgmma_cluster import GemmClusterPlan
import exp1h as H
import s28h

wd = Watchdog(150)
H.wd = s28h.wd = wd
print(nvfp4rt.device().properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)
VAR = {"base": (None, -1), "c100": (None, 100), "g132": (132, 100), "g264": (264, 100)}


def setup(p, grid):
    if grid is not None:
        p._decode.grid = grid
    p._decode._launch, p._repeat = None, None
    return p


p = setup(GemmClusterPlan(128, 7168, 2048, 1), 132)
p._decode.kernel.set_shared_carveout(100)
H.check_gemm(p, 128, 7168, 2048, 1, "check g132")
for (m, n, k) in [(128, 7168, 16384), (128, 7168, 2048), (128, 4096, 7168)]:
    d, args, c = H.gemm_args(m, n, k, 1, "competition")
    plans = {nm: setup(GemmClusterPlan(m, n, k, 1), g) for nm, (g, cv) in VAR.items()}
    kern = plans["base"]._decode.kernel
    for nm, p in plans.items():
        kern.set_shared_carveout(VAR[nm][1])
        wd.arm(nm); p(*args); driver.call("cuCtxSynchronize"); wd.disarm()
    s28h.keep.append((plans, args, d, c))
    res = {nm: [] for nm in plans}
    for rnd in range(4):
        for nm, p in plans.items():
            kern.set_shared_carveout(VAR[nm][1])
            res[nm].append(s28h.best(lambda p=p: p(*args)))
    print(f"{m}x{n}x{k} {plans['base']!r} decode grid {plans['base']._decode.grid}", flush=True)
    for nm in plans:
        print(f"  {m}x{n}x{k} {nm:5s} whole " + " ".join(f"{a:.2f}" for a in res[nm]), flush=True)
    kern.set_shared_carveout(-1)
print("FAILS:", H.FAILS, "done", time.strftime("%H:%M:%S"), flush=True)
