"""Session 28, device run 10: per-unit times in the bench's own regime (kernel alone, L2 cleared before each launch,
best of 3 medians of 40), from two unit counts so no fixed cost is assumed.
(a) the microbenchmark (wgrate2.py, kind dec, nbuf=8, scl=1): 4096 against 2048 pieces per warpgroup, grid 112 and 132;
(b) the K split (128x7168xK, 112 CTAs): base, n64 and strip_max at K = 16384 and 8192; two rounds."""
import sys, time
import numpy as np
sys.path.insert(0, "tools"); sys.path.insert(0, ".scratch/s28")
from hang_watchdog import Watchdog
import nvfp4rt
from nvfp4rt import driver
from nvfp4rt.module import load
from nvfp4rt.launch import Pointer
from nvfp4rt.memory import DeviceAllocation
from nvfp4rt.ops.gemm_wgmma_cluster import GemmClusterPlan
from nvfp4rt.ptxsource import render
import wgrate2 as W
import exp1h as H
import probes28 as P
import s28h

wd = Watchdog(120)
H.wd = s28h.wd = wd
print(nvfp4rt.device().properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)
out = DeviceAllocation(132 * 640 * 16)
kern = {}
for pieces in (4096, 2048):
    mod = load(W.kernel("dec", pieces=pieces, nbuf=8, scl=1), target="sm_90a")
    s28h.keep.append(mod)
    kern[pieces] = mod.kernel("wgrate")
    kern[pieces].set_max_dynamic_shared(1024 + 33792 + 16384 * 8)
for rnd in range(2):
    for grid in (112, 132):
        t = {pc: s28h.best(lambda pc=pc: kern[pc](Pointer(out.ptr), grid=grid, block=384,
                                                      shared_mem=1024 + 33792 + 16384 * 8)) for pc in (4096, 2048)}
        per = (t[4096] - t[2048]) / 256
        print(f"wgrate2 dec grid {grid}: {t[4096]:.1f} / {t[2048]:.1f} us at 512 / 256 units -> {per * 1e3:.0f} ns per unit"
              f" (fixed {t[2048] - 256 * per:.1f} us)", flush=True)
TEXT = open("ptx/gemm_nvfp4_wgmma_cluster.ptx").read()
plans = {}
for k in (16384, 8192):
    d, args, c = H.gemm_args(128, 7168, k, 1, "competition")
    s28h.keep.append((d, args, c))
    base = GemmClusterPlan(128, 7168, k, 1)
    bt = render(TEXT, "sm_90a", base.constants)
    for nm, f in (("base", lambda t: t), ("n64", P.n64), ("strip_max", P.strip_max)):
        p = s28h.swap(GemmClusterPlan(128, 7168, k, 1), f(bt))
        wd.arm(nm); p(*args); driver.call("cuCtxSynchronize"); wd.disarm()
        plans[(nm, k)] = p
for rnd in range(2):
    t = {key: s28h.best(lambda p=p: p._launch.launch()) for key, p in plans.items()}
    for nm in ("base", "n64", "strip_max"):
        per = (t[(nm, 16384)] - t[(nm, 8192)]) / 16
        print(f"K split {nm:10s}: {t[(nm, 16384)]:.2f} / {t[(nm, 8192)]:.2f} us at 32 / 16 units per CTA -> "
              f"{per * 1e3:.0f} ns per unit (fixed {t[(nm, 8192)] - 16 * per:.1f} us)", flush=True)
print("done", time.strftime("%H:%M:%S"), flush=True)
