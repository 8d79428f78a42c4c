"""Session 23, device run 3: timing-only probes of the GEMM's consumer loop (probes.py) on 128x7168x16384 (K split 2,
the default plan) and 128x7168x2048: kernel alone, two interleaved rounds, best of 3 medians of 40 (us)."""
import sys, time
sys.path.insert(0, "tools"); sys.path.insert(0, ".scratch/s27")
from hang_watchdog import Watchdog
import nvfp4rt
from nvfp4rt import driver
from nvfp4rt.bench import time_op
from nvfp4rt.module import load
from nvfp4rt.ops import gemm_wgmma_cluster as G
from nvfp4rt.ops.gemm_wgmma_cluster import GemmClusterPlan
from nvfp4rt.ptxsource import render
import exp1h as H
import probes27 as probes

wd = Watchdog(90)
H.wd = wd
print(nvfp4rt.device().properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)
TEXT = open("ptx/gemm_nvfp4_wgmma_cluster.ptx").read()
keep = []
names = sys.argv[1:] or list(probes.PROBES)


def best(f, n=3, iters=40):
    wd.arm("timing")
    r = min(time_op(f, iters=iters).median_us for _ in range(n))
    wd.disarm()
    return r


import os
SHAPES = [tuple(map(int, x.split('x'))) for x in os.environ.get('SHAPES', '128x7168x16384,128x4096x7168,128x7168x2048').split(',')]
for (m, n, k) in SHAPES:
    d, args, c = H.gemm_args(m, n, k, 1, "competition")
    plans = {"base": GemmClusterPlan(m, n, k, 1)}
    base_text = render(TEXT, "sm_90a", plans["base"].constants)
    for nm in names:
        p = GemmClusterPlan(m, n, k, 1)
        mod = load(probes.PROBES[nm.removeprefix('x_')](base_text), target="sm_90a")
        kern = mod.kernel(G._ENTRY)
        kern.set_max_dynamic_shared(p.shared_mem)
        p.kernel, p._launch, p._repeat, p._launched_maps = kern, None, None, {}
        keep.append(mod)
        plans[nm] = p
    for nm, p in plans.items():
        wd.arm(nm); p(*args); driver.call("cuCtxSynchronize"); wd.disarm()
        if nm.startswith("x_"):  # exact probes: checked against the reference in both distributions
            H.check_gemm(p, m, n, k, 1, f"{m}x{n}x{k} {nm}")
            wd.arm(nm); p(*args); driver.call("cuCtxSynchronize"); wd.disarm()  # rebind the kept operands
    keep.append((plans, args, d, c))
    res = {nm: [] for nm in plans}
    whole = {nm: [] for nm in plans}
    for rnd in range(3):
        if os.environ.get("WHOLE"):
            for nm, p in plans.items():
                whole[nm].append(best(lambda p=p: p(*args)))
        for nm, p in plans.items():
            res[nm].append(best(lambda p=p: p._launch.launch()))
    print(f"{m}x{n}x{k} {plans['base']!r}", flush=True)
    for nm in plans:
        print(f"  {nm:18s} kernel alone " + "  ".join(f"{a:.2f}" for a in res[nm])
              + ("   whole " + "  ".join(f"{a:.2f}" for a in whole[nm]) if whole[nm] else ""), flush=True)
print("FAILS", H.FAILS)
print("done", time.strftime("%H:%M:%S"), flush=True)
