"""Session 27: the whole call's samples one by one (128x7168x2048 and 128x7168x16384): time_op's 40 samples for
whole / alone / whole / whole, and this harness's block without warmup; each sample printed (us)."""
import sys, time
import numpy as np
sys.path.insert(0, "tools"); sys.path.insert(0, ".scratch/s27")
from hang_watchdog import Watchdog
import nvfp4rt
from nvfp4rt import driver
from nvfp4rt.bench import DriverTimer, time_op
from nvfp4rt.ops.gemm_wgmma_cluster import GemmClusterPlan
import exp1h as H

wd = Watchdog(120)
H.wd = wd
print(nvfp4rt.device().properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)
keep = []
for (m, n, k) in [(128, 7168, 2048), (128, 7168, 16384)]:
    d, args, c = H.gemm_args(m, n, k, 1, "competition")
    p = GemmClusterPlan(m, n, k, 1)
    wd.arm("p"); p(*args); driver.call("cuCtxSynchronize"); wd.disarm()
    keep.append((p, args, d, c))
    print(f"{m}x{n}x{k}", flush=True)
    for nm, fn in (("whole", lambda: p(*args)), ("alone", lambda: p._launch.launch()), ("whole", lambda: p(*args)),
                   ("whole", lambda: p(*args)), ("whole, warmup 11", None)):
        wd.arm(nm)
        if fn is None:
            r = time_op(lambda: p(*args), iters=40, warmup=11)
        else:
            r = time_op(fn, iters=40)
        wd.disarm()
        print(f"  {nm:16s} median {r.median_us:.2f}: " + " ".join(f"{x:.1f}" for x in r.samples), flush=True)
print("FAILS", H.FAILS)
