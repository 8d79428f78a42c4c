"""Session 28, device run 9: cycles per k256 unit from two unit counts (so no fixed cost is assumed): each build on
128x7168x16384 (32 units per CTA) and 128x7168x8192 (16), both K split 2 on 112 CTAs, run back to back for 1.2 s
with nvidia-smi sampling the clock; per unit = (T32 - T16) / 16, cycles at the two runs' mean clock.  Builds: base,
dbl, dbl+nobar+nodec_nomul, strip_max, dbl_strip_max (probes28.py).  Also kernel alone with L2 cleared."""
import sys, time
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
B = {"base": (lambda t: t, 1), "dbl": (P.dbl, 2), "dbl_stripped": (lambda t: P.dbl(nd(P26.PROBES["nobar"](t))), 2),
     "strip_max": (P.strip_max, 1), "dbl_strip_max": (P.PROBES["dbl_strip_max"], 2)}
res = {}
for k in (16384, 8192):
    m, n = 128, 7168
    d, args, c = H.gemm_args(m, n, k, 1, "competition")
    s28h.keep.append((d, args, c))
    base = GemmClusterPlan(m, n, k, 1)
    bt = render(TEXT, "sm_90a", base.constants)
    for nm, (f, w) in B.items():
        p = s28h.swap(GemmClusterPlan(m, n, k, 1), f(bt))
        wd.arm(nm); p(*args); driver.call("cuCtxSynchronize"); wd.disarm()
        l2 = s28h.best(lambda p=p: p._launch.launch())
        us, clk = s28h.sustained(f"{m}x{n}x{k} {nm}", p._launch.launch, seconds=1.2)
        res[(nm, k)] = (us, clk, l2)
        print(f"    kernel alone, L2 cleared: {l2:.2f} us  {p!r}", flush=True)
for nm, (f, w) in B.items():
    (u32, c32, l32), (u16, c16, l16) = res[(nm, 16384)], res[(nm, 8192)]
    per = (u32 - u16) / 16 / w
    clk = (c32 + c16) / 2
    print(f"{nm:14s} back to back: {u32:.2f} - {u16:.2f} us -> {per * 1e3:.0f} ns per 128x128xk256 of tensor work, "
          f"{per * clk:.0f} cycles at {clk:.0f} MHz ({2048 / (per * clk) * 100:.0f}% of the pipe); L2 cleared: "
          f"{(l32 - l16) / 16 / w * 1e3:.0f} ns per unit", flush=True)
print("done", time.strftime("%H:%M:%S"), flush=True)
