"""Session 30, device run 4: what a tile boundary inside a run costs in the GEMM template: whole-tile runs of 1, 2, 3,
4 tiles per CTA (cluster 1 and 2), kernel alone, L2 cleared, best of 3 medians of 40; every plan checked."""
import sys, time
import numpy as np
sys.path.insert(0, "tools"); sys.path.insert(0, ".scratch/s30")
from hang_watchdog import Watchdog
import nvfp4rt
from nvfp4rt import driver
from nvfp4rt.ops.gemm_wgmma_cluster import GemmClusterPlan
import exp1h as H
import s28h

wd = Watchdog(150)
H.wd = s28h.wd = wd
print(nvfp4rt.device().properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)
for (m, n, k) in [(128, 7168, 2048), (128, 7168, 7168), (1408, 4096, 7168)]:
    kb = k // 256
    for cl in (1, 2):
        for mult in (1, 2, 3, 4):
            p = GemmClusterPlan(m, n, k, 1, cluster=cl, units_per_cluster=kb * mult)
            if p.geometry.grid > 132:
                continue
            d, args, c = H.gemm_args(m, n, k, 1, "competition")
            wd.arm("first"); p(*args); driver.call("cuCtxSynchronize"); wd.disarm()
            from nvfp4rt import reference
            ok = reference.check(c.numpy().transpose(1, 2, 0), reference.gemm_ref(d.a, d.b, d.sfa, d.sfb)).ok
            t = s28h.best(lambda: p._launch.launch())
            print(f"{m}x{n}x{k} c{cl} tiles/run {mult}: {t:7.2f} us  ({t / mult:6.2f} per tile)  {'OK' if ok else 'FAIL'}  {p!r}",
                  flush=True)
print("done", time.strftime("%H:%M:%S"), flush=True)
