"""Session 28, device run 4: is the doubled loop (dbl: twice the tensor work per piece) held below the tensor pipe's
rate by the decode, the transfers or the barriers?  Session 26's timing probes (probes26.py: nodec_nomul, noAB, nobar)
stacked on dbl, on 128x7168x16384 (K split 2, 32 units per CTA): kernel alone with L2 cleared (best of 3 medians of 40,
two rounds), then each build back to back for 2 s with nvidia-smi sampling the SM clock."""
import os, sys, time
sys.path.insert(0, "tools"); sys.path.insert(0, ".scratch/s28")
from hang_watchdog import Watchdog
import nvfp4rt
from nvfp4rt import driver
from nvfp4rt.ops.gemm_wgmma_cluster import GemmClusterPlan
from nvfp4rt.ptxsource import render
import exp1h as H
import probes28 as P
import probes26 as P26
import s28h

wd = Watchdog(120)
H.wd = s28h.wd = wd
print(nvfp4rt.device().properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)
TEXT = open("ptx/gemm_nvfp4_wgmma_cluster.ptx").read()
nd = P26.PROBES["nodec_nomul"]
VARIANTS = {
    "base": (lambda t: t, 1), "dbl": (P.dbl, 2),
    "nodec_nomul": (nd, 1), "dbl+nodec_nomul": (lambda t: P.dbl(nd(t)), 2),
    "dbl+noAB": (lambda t: P.dbl(P26.PROBES["noAB"](t)), 2),
    "nobar": (P26.PROBES["nobar"], 1), "dbl+nobar": (lambda t: P.dbl(P26.PROBES["nobar"](t)), 2),
    "nobar+nodec_nomul": (lambda t: nd(P26.PROBES["nobar"](t)), 1),
    "dbl+nobar+nodec_nomul": (lambda t: P.dbl(nd(P26.PROBES["nobar"](t))), 2),
}
m, n, k = 128, 7168, 16384
d, args, c = H.gemm_args(m, n, k, 1, "competition")
base = GemmClusterPlan(m, n, k, 1)
bt = render(TEXT, "sm_90a", base.constants)
plans = {}
for nm, (f, w) in VARIANTS.items():
    plans[nm] = s28h.swap(GemmClusterPlan(m, n, k, 1), f(bt)) if nm != "base" else base
    wd.arm(nm); plans[nm](*args); driver.call("cuCtxSynchronize"); wd.disarm()
res = {nm: [] for nm in plans}
for rnd in range(2):
    for nm, p in plans.items():
        res[nm].append(s28h.best(lambda p=p: p._launch.launch()))
for nm in plans:
    print(f"{nm:24s} kernel alone (L2 cleared): " + "  ".join(f"{x:.2f}" for x in res[nm]), flush=True)
for nm, p in plans.items():
    us, clk = s28h.sustained(nm, p._launch.launch)
    w = VARIANTS[nm][1]
    print(f"    {nm}: (us - 8) / (32 units x {w}) = {(us - 8) / (32 * w):.3f} us per 128x128xk256 of tensor work, "
          f"{(us - 8) / (32 * w) * clk:.0f} cycles at {clk:.0f} MHz (the pipe's nominal: 2048)", flush=True)
print("done", time.strftime("%H:%M:%S"), flush=True)
