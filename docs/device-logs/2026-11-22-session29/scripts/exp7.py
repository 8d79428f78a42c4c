"""Session 29, device run 8: the K split's exchange by remote stores (rst.py: exact) against the committed bulk-copy
push, on the two benchmark shapes that run the plain K split (128x7168x16384, 128x7168x2048).  The outputs of both
builds on the same inputs are compared bit for bit and against the reference in both distributions; whole call four
interleaved rounds, kernel alone two; L2 cleared, best of 3 medians of 40."""
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
import rst

wd = Watchdog(150)
H.wd = s28h.wd = wd
print(nvfp4rt.device().properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)
TEXT = open("ptx/gemm_nvfp4_wgmma_cluster.ptx").read()
for (m, n, k) in [(128, 7168, 2048), (128, 7168, 16384), (256, 4096, 4096)]:
    base = GemmClusterPlan(m, n, k, 1)
    c = base.constants
    if not (c["KSPLIT"] == 2 and c["KS_PUSH"] == 1 and c["KS_STREAM"] == 0 and c["KS_HELP"] == 0):
        print(f"{m}x{n}x{k}: not a plain K split of 2 ({base!r}), skipped", flush=True)
        continue
    p = s28h.swap(GemmClusterPlan(m, n, k, 1), rst.rst(render(TEXT, "sm_90a", c)))
    plans = {"push": base, "rst": p}
    for dist in ("competition", "wide"):
        d, args, cc = H.gemm_args(m, n, k, 1, dist)
        outs = {}
        for nm, q in plans.items():
            cc.fill(np.nan); driver.call("cuCtxSynchronize")
            wd.arm(nm); q(*args); driver.call("cuCtxSynchronize"); wd.disarm()
            outs[nm] = cc.numpy().copy()
        same = np.array_equal(outs["push"].view(np.uint16), outs["rst"].view(np.uint16))
        print(f"  {m}x{n}x{k} {dist}: rst bits {'equal' if same else 'DIFFER'} to push", flush=True)
        if not same:
            H.FAILS.append(f"{m}x{n}x{k} {dist} bits")
        H.check_gemm(p, m, n, k, 1, f"{m}x{n}x{k} rst", dists=(dist,))
    d, args, cc = H.gemm_args(m, n, k, 1, "competition")
    for q in plans.values():
        q(*args)
    driver.call("cuCtxSynchronize")
    s28h.keep.append((plans, args, d, cc))
    whole = {nm: [] for nm in plans}
    kern = {nm: [] for nm in plans}
    for rnd in range(4):
        for nm, q in plans.items():
            whole[nm].append(s28h.best(lambda q=q: q(*args)))
            if rnd < 2:
                kern[nm].append(s28h.best(lambda q=q: q._launch.launch()))
    print(f"{m}x{n}x{k} {base!r}", flush=True)
    for nm in plans:
        print(f"  {m}x{n}x{k} {nm:5s} whole " + " ".join(f"{a:.2f}" for a in whole[nm]) +
              "   kernel " + " ".join(f"{a:.2f}" for a in kern[nm]), flush=True)
print("FAILS:", H.FAILS, "done", time.strftime("%H:%M:%S"), flush=True)
