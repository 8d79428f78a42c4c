"""Session 27: how much the K split's time depends on ptxas's schedule: the default build JIT-compiled with a register
cap (CU_JIT_MAX_REGISTERS) or a lower optimisation level, each checked in both distributions, then kernel alone
(three interleaved rounds, best of 3 medians of 40, us)."""
import os, sys, time
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

wd = Watchdog(120)
H.wd = wd
print(nvfp4rt.device().properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)
TEXT = open("ptx/gemm_nvfp4_wgmma_cluster.ptx").read()
VARIANTS = {"regs104": {"CU_JIT_MAX_REGISTERS": 104}, "regs112": {"CU_JIT_MAX_REGISTERS": 112},
            "regs116": {"CU_JIT_MAX_REGISTERS": 116}, "regs120": {"CU_JIT_MAX_REGISTERS": 120},
            "O3": {"CU_JIT_OPTIMIZATION_LEVEL": 3}, "O2": {"CU_JIT_OPTIMIZATION_LEVEL": 2}}
SHAPES = [tuple(map(int, x.split('x'))) for x in os.environ.get('SHAPES', '128x7168x16384,128x7168x2048').split(',')]
keep = []


def best(f, n=3, iters=40):
    wd.arm("timing")
    r = min(time_op(f, iters=iters).median_us for _ in range(n))
    wd.disarm()
    return r


for (m, n, k) in SHAPES:
    d, args, c = H.gemm_args(m, n, k, 1, "competition")
    plans = {"base": GemmClusterPlan(m, n, k, 1)}
    text = render(TEXT, "sm_90a", plans["base"].constants)
    for nm, opts in VARIANTS.items():
        p = GemmClusterPlan(m, n, k, 1)
        mod = load(text, target="sm_90a", options=opts)
        kern = mod.kernel(G._ENTRY)
        kern.set_max_dynamic_shared(p.shared_mem)
        p.kernel, p._launch, p._repeat, p._launched_maps = kern, None, None, {}
        keep.append(mod)
        plans[nm] = p
        print(f"  {nm}: {kern.attributes().registers} registers, {kern.attributes().local_bytes} local bytes", flush=True)
    for nm, p in plans.items():
        H.check_gemm(p, m, n, k, 1, f"{m}x{n}x{k} {nm}")
        wd.arm(nm); p(*args); driver.call("cuCtxSynchronize"); wd.disarm()
    keep.append((plans, args, d, c))
    res = {nm: [] for nm in plans}
    for rnd in range(3):
        for nm, p in plans.items():
            res[nm].append(best(lambda p=p: p._launch.launch()))
    print(f"{m}x{n}x{k} {plans['base']!r}", flush=True)
    for nm in plans:
        print(f"  {nm:10s} kernel alone " + "  ".join(f"{a:.2f}" for a in res[nm]), flush=True)
print("FAILS", H.FAILS)
print("done", time.strftime("%H:%M:%S"), flush=True)
