"""Session 24, device run H: one launch, A decoded by NDEC extra CTAs of the GEMM's grid on the SMs the K split leaves
idle (decoders.py, exact: FUSED_A's flags and bounded-wait fallback), against the committed decode + GEMM, FUSED_A as
committed, and the GEMM alone; checked in both distributions; best of 3 medians of 40, L2 cleared, 3 rounds."""
import sys, time, dataclasses
import numpy as np
sys.path.insert(0, "tools"); sys.path.insert(0, ".scratch/s24")
from hang_watchdog import Watchdog
import nvfp4rt
from nvfp4rt import driver
from nvfp4rt.bench import time_op
from nvfp4rt.module import load
from nvfp4rt.ops import gemm_wgmma_cluster as G
from nvfp4rt.ops.gemm_wgmma_cluster import GemmClusterPlan
from nvfp4rt.ptxsource import render
import exp1h as H
import decoders

wd = Watchdog(120)
H.wd = wd
print(nvfp4rt.device().properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)
TEXT = open("ptx/gemm_nvfp4_wgmma_cluster.ptx").read()
keep = []
NDECS = [int(a) for a in sys.argv[1:] if a.isdigit()] or [20]
PRE = "pre" in sys.argv[1:]


def best(f, n=3, iters=40):
    wd.arm("timing")
    r = min(time_op(f, iters=iters).median_us for _ in range(n))
    wd.disarm()
    return r


def dec_plan(m, n, k, ndec, a_wait=None):
    p = GemmClusterPlan(m, n, k, 1, fused_a=True, **({} if a_wait is None else {"a_wait": a_wait}))
    g = p.geometry
    d0 = g.grid
    p.geometry = dataclasses.replace(g, clusters=g.clusters + ndec)   # K split: grid = clusters
    assert p.geometry.grid == d0 + ndec
    text = decoders.decoders_pub(render(TEXT, "sm_90a", p.constants), d0, ndec)
    mod = load(decoders.pre(text) if PRE else text, target="sm_90a")
    kern = mod.kernel(G._ENTRY)
    kern.set_max_dynamic_shared(p.shared_mem)
    p.kernel, p._launch, p._repeat, p._launched_maps = kern, None, None, {}
    keep.append((mod, p))
    return p


for (m, n, k) in [(128, 7168, 16384), (128, 7168, 2048)]:
    base = GemmClusterPlan(m, n, k, 1)
    plans = {"decode+gemm": base, "fused_a": GemmClusterPlan(m, n, k, 1, fused_a=True)}
    for nd in NDECS:
        plans[f"pub{nd}"] = dec_plan(m, n, k, nd)
        H.check_gemm(plans[f"pub{nd}"], m, n, k, 1, f"decoders{nd} {m}x{n}x{k}")
    p0 = dec_plan(m, n, k, NDECS[0], a_wait=0)
    H.check_gemm(p0, m, n, k, 1, f"pub{NDECS[0]} a_wait=0 {m}x{n}x{k}")
    d, args, c = H.gemm_args(m, n, k, 1, "competition")
    for nm, p in plans.items():
        wd.arm(nm); p(*args); driver.call("cuCtxSynchronize"); wd.disarm()
    fns = {nm: (lambda p=p: p(*args)) for nm, p in plans.items()}
    fns["gemm alone"] = lambda: base._launch.launch()
    res = {nm: [] for nm in fns}
    for _ in range(3):
        for nm, f in fns.items():
            res[nm].append(best(f))
    print(f"{m}x{n}x{k} {base!r}", flush=True)
    for nm in fns:
        print(f"  {nm:12s} " + " ".join(f"{a:.2f}" for a in res[nm]) + f"  (median {np.median(res[nm]):.2f})", flush=True)
print("FAILS", H.FAILS)
print("done", time.strftime("%H:%M:%S"), flush=True)
