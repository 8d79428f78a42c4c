"""Session 28, device run 2: the loop's time against its tensor work.  Probes of probes28.py on the committed
GEMM plans (kernel alone; x_ = checked exact in both distributions): n64 (half the tensor work, exact only for m <= 64),
maxnreg (setmaxnreg 232 / 40 alone), dbl (every wgmma issued twice into a second accumulator set: twice the tensor
work, the same decode; exact).  Best of 3 medians of 40 (us), two interleaved rounds, L2 cleared."""
import os, sys, time
import numpy as np
sys.path.insert(0, "tools"); sys.path.insert(0, ".scratch/s28")
from hang_watchdog import Watchdog
import nvfp4rt
from nvfp4rt import driver
from nvfp4rt.bench import time_op, get_op
from nvfp4rt.module import load
from nvfp4rt.ops import gemm_wgmma_cluster as G
from nvfp4rt.ops.gemm_wgmma_cluster import GemmClusterPlan
from nvfp4rt.ptxsource import render
import exp1h as H
import probes28 as P

wd = Watchdog(120)
H.wd = wd
dev = nvfp4rt.device()
print(dev.properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)
TEXT = open("ptx/gemm_nvfp4_wgmma_cluster.ptx").read()
keep = []
NAMES = os.environ.get("PROBES", "n64,maxnreg,x_dbl").split(",")
SHAPES = [tuple(map(int, x.split('x'))) for x in os.environ.get('SHAPES', '128x7168x16384,128x4096x7168,128x7168x2048').split(',')]


def swap(p, text):
    mod = load(text, target="sm_90a")
    kern = mod.kernel(G._ENTRY)
    kern.set_max_dynamic_shared(p.shared_mem)
    p.kernel, p._launch, p._repeat = kern, None, None
    if hasattr(p, "_launched_maps"):
        p._launched_maps = {}
    keep.append(mod)
    return p


def best(f, n=3, iters=40):
    wd.arm("timing")
    r = min(time_op(f, iters=iters).median_us for _ in range(n))
    wd.disarm()
    return r


for (m, n, k) in SHAPES:
    d, args, c = H.gemm_args(m, n, k, 1, "competition")
    plans = {"base": GemmClusterPlan(m, n, k, 1)}
    base_text = render(TEXT, "sm_90a", plans["base"].constants)
    for nm in NAMES:
        plans[nm] = swap(GemmClusterPlan(m, n, k, 1), P.PROBES[nm.removeprefix("x_")](base_text))
    for nm, p in plans.items():
        if nm.startswith("x_"):
            H.check_gemm(p, m, n, k, 1, f"{m}x{n}x{k} {nm}")
        wd.arm(nm); p(*args); driver.call("cuCtxSynchronize"); wd.disarm()
    keep.append((plans, args, d, c))
    res = {nm: [] for nm in plans}
    for rnd in range(2):
        for nm, p in plans.items():
            res[nm].append(best(lambda p=p: p._launch.launch()))
    print(f"{m}x{n}x{k} {plans['base']!r}", flush=True)
    for nm in plans:
        print(f"{m}x{n}x{k} {nm:10s} kernel alone: " + "  ".join(f"{x:.2f}" for x in res[nm]), flush=True)

if os.environ.get("CASE1"):
    from nvfp4rt.ops import grouped_gemm as GG
    from nvfp4rt.ops.grouped_gemm_mtiles import GroupedGemmMTilePlan
    from nvfp4rt.reference import check, gemm_ref
    bench = get_op("grouped_gemm")(device=dev)
    state = bench.make_inputs({"case": 1}, np.random.default_rng())
    layouts = [GG._raw_groups([v])[0][3] for v in state.views]
    base = GroupedGemmMTilePlan(state.shapes, layouts)
    plans = {"mtiles": base}
    for nm in NAMES:
        if nm != "n64":
            plans[nm] = swap(GroupedGemmMTilePlan(state.shapes, layouts),
                             P.PROBES[nm.removeprefix("x_")](render(TEXT, "sm_90a", base.constants)))
    for nm, p in plans.items():
        for arrs in state.dev:
            arrs["c"].fill(np.nan)
        driver.call("cuCtxSynchronize")
        wd.arm(nm); p(state.views); driver.call("cuCtxSynchronize"); wd.disarm()
        ok = all(check(arrs["c"].numpy().transpose(1, 2, 0), gemm_ref(g.a, g.b, g.sfa, g.sfb)).ok
                 for arrs, g in zip(state.dev, state.host.groups))
        print(f"case 1 {nm}: {'OK' if ok else 'FAIL'} {p!r}", flush=True)
    res = {nm: [] for nm in plans}
    for rnd in range(2):
        for nm, p in plans.items():
            res[nm].append(best(lambda p=p: p._launch.launch()))
    for nm in plans:
        print(f"case 1 {nm:10s} kernel alone: " + "  ".join(f"{x:.2f}" for x in res[nm]), flush=True)
print("FAILS:", H.FAILS, "done", time.strftime("%H:%M:%S"), flush=True)
