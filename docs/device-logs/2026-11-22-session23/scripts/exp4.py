"""Session 23, device run 4: the decode moved above the wgmma.wait_group (probes a06, a27, a16: exact) on the GEMM's
shapes: correctness (wide distribution, NaN-poisoned c) and kernel alone, two interleaved rounds, best of 3 medians
of 40 (us); probes constsc/nodec as references."""
import sys, time
sys.path.insert(0, "tools"); sys.path.insert(0, ".scratch/s23")
from hang_watchdog import Watchdog
import nvfp4rt
from nvfp4rt import driver
from nvfp4rt.bench import time_op
from nvfp4rt.module import load
from nvfp4rt.ops import gemm_wgmma_cluster as G
from nvfp4rt.ops.gemm_wgmma_cluster import GemmClusterPlan
from nvfp4rt.ptxsource import render
import exp1h as H
import probes

wd = Watchdog(90)
H.wd = wd
print(nvfp4rt.device().properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)
TEXT = open("ptx/gemm_nvfp4_wgmma_cluster.ptx").read()
keep = []
names = sys.argv[1:]
EXACT = {"pf2", "desc64", "wait0", "a06", "a27", "a16", "ahead17", "early", "early_try", "early123"}


def best(f, n=3, iters=40):
    wd.arm("timing")
    r = min(time_op(f, iters=iters).median_us for _ in range(n))
    wd.disarm()
    return r


for (m, n, k) in [(128, 7168, 16384), (128, 4096, 7168), (128, 7168, 2048)]:
    d, args, c = H.gemm_args(m, n, k, 1, "competition")
    plans = {"base": GemmClusterPlan(m, n, k, 1)}
    base_text = render(TEXT, "sm_90a", plans["base"].constants)
    for nm in names:
        p = GemmClusterPlan(m, n, k, 1)
        try:
            mod = load(probes.PROBES[nm](base_text), target="sm_90a")
        except AssertionError as e:
            print(f"  {nm}: not applicable here ({e})", flush=True)
            continue
        kern = mod.kernel(G._ENTRY)
        kern.set_max_dynamic_shared(p.shared_mem)
        p.kernel, p._launch, p._repeat, p._launched_maps = kern, None, None, {}
        keep.append(mod)
        plans[nm] = p
        if nm in EXACT:
            H.check_gemm(p, m, n, k, 1, f"{m}x{n}x{k} {nm}", ("wide", "competition"))
    for nm, p in plans.items():
        wd.arm(nm); p(*args); driver.call("cuCtxSynchronize"); wd.disarm()
    keep.append((plans, args, d, c))
    res = {nm: [] for nm in plans}
    for rnd in range(2):
        for nm, p in plans.items():
            res[nm].append(best(lambda p=p: p._launch.launch()))
    print(f"{m}x{n}x{k} {plans['base']!r}", flush=True)
    for nm in plans:
        print(f"  {nm:18s} kernel alone " + "  ".join(f"{a:.2f}" for a in res[nm]), flush=True)
print("FAILS:", H.FAILS, "done", time.strftime("%H:%M:%S"), flush=True)
