"""Session 24, device run D: ablation of the exact loop changes on the three GEMM shapes (kernel alone, best of 3
medians of 40, L2 cleared, three interleaved rounds); every variant checked first (competition and wide data)."""
import sys, time
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
import probes24
from probes import PROBES

wd = Watchdog(120)
H.wd = wd
print(nvfp4rt.device().properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)
TEXT = open("ptx/gemm_nvfp4_wgmma_cluster.ptx").read()
keep = []
NAMES = sys.argv[1:]


def best(f, n=3, iters=40):
    wd.arm("timing")
    r = min(time_op(f, iters=iters).median_us for _ in range(n))
    wd.disarm()
    return r


def swap(p, nm):
    mod = load(PROBES[nm](render(TEXT, "sm_90a", p.constants)), target="sm_90a")
    kern = mod.kernel(G._ENTRY)
    kern.set_max_dynamic_shared(p.shared_mem)
    p.kernel, p._launch, p._repeat, p._launched_maps = kern, None, None, {}
    keep.append((mod, p))
    return p


for (m, n, k) in [(128, 7168, 16384), (128, 4096, 7168), (128, 7168, 2048)]:
    plans = {"base": GemmClusterPlan(m, n, k, 1)}
    for nm in NAMES:
        plans[nm] = swap(GemmClusterPlan(m, n, k, 1), nm)
        H.check_gemm(plans[nm], m, n, k, 1, f"{nm} {m}x{n}x{k}")
    d, args, c = H.gemm_args(m, n, k, 1, "competition")
    for nm, p in plans.items():
        wd.arm(nm); p(*args); driver.call("cuCtxSynchronize"); wd.disarm()
    res = {nm: [] for nm in plans}
    for _ in range(3):
        for nm, p in plans.items():
            res[nm].append(best(lambda p=p: p._launch.launch()))
    print(f"{m}x{n}x{k} {plans['base']!r}", flush=True)
    for nm in plans:
        print(f"  {nm:14s} kernel alone " + "  ".join(f"{a:.2f}" for a in res[nm]) + f"   min {min(res[nm]):.2f}", flush=True)
print("FAILS", H.FAILS)
print("done", time.strftime("%H:%M:%S"), flush=True)
