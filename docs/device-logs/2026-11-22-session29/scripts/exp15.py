"""Session 29, device run 17: the K split's push copy split into 2, 4 or 8 bulk copies (splitcp.py, exact) against the
committed single copy per peer; outputs compared bit for bit; kernel alone two rounds and whole call three, L2
cleared, best of 3 medians of 40."""
import sys, time
import numpy as np
sys.path.insert(0, "tools"); sys.path.insert(0, ".scratch/s29")
from hang_watchdog import Watchdog
import nvfp4rt
from nvfp4rt import driver
from nvfp4rt.ops.gemm_wgmma_cluster import GemmClusterPlan
from nvfp4rt.ptxsource import render
import exp1h as H
import s28h
import splitcp

wd = Watchdog(150)
H.wd = s28h.wd = wd
print(nvfp4rt.device().properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)
TEXT = open("ptx/gemm_nvfp4_wgmma_cluster.ptx").read()
FAILS = []
for (m, n, k) in [(128, 7168, 16384), (128, 7168, 2048), (128, 4096, 7168), (256, 4096, 4096)]:
    base = GemmClusterPlan(m, n, k, 1)
    bt = render(TEXT, "sm_90a", base.constants)
    plans = {"one": base}
    for s in (2, 4, 8):
        plans[f"split{s}"] = s28h.swap(GemmClusterPlan(m, n, k, 1), splitcp.splitcp(bt, s))
    d, args, c = H.gemm_args(m, n, k, 1, "wide")
    outs = {}
    for nm, p in plans.items():
        c.fill(np.nan); driver.call("cuCtxSynchronize")
        wd.arm(nm); p(*args); driver.call("cuCtxSynchronize"); wd.disarm()
        outs[nm] = c.numpy().copy()
    for nm in plans:
        if not np.array_equal(outs[nm].view(np.uint16), outs["one"].view(np.uint16)):
            FAILS.append(f"{m}x{n}x{k} {nm} bits")
    s28h.keep.append((plans, args, d, c))
    kern = {nm: [] for nm in plans}
    whole = {nm: [] for nm in plans}
    for rnd in range(3):
        for nm, p in plans.items():
            whole[nm].append(s28h.best(lambda p=p: p(*args)))
            if rnd < 2:
                kern[nm].append(s28h.best(lambda p=p: p._launch.launch()))
    print(f"{m}x{n}x{k} {base!r}", flush=True)
    for nm in plans:
        print(f"  {m}x{n}x{k} {nm:7s} kernel " + " ".join(f"{a:.2f}" for a in kern[nm]) +
              "   whole " + " ".join(f"{a:.2f}" for a in whole[nm]), flush=True)
print("FAILS (bits):", FAILS, "done", time.strftime("%H:%M:%S"), flush=True)
