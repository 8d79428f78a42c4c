"""Session 24, device run B: the decode prepass prefetching the GEMM's first B stages into L2 (warm.py; timing probe):
whole calls, best of 3 medians of 40, L2 cleared, two interleaved rounds; GEMM shapes and grouped case 3."""
import sys, time
import numpy as np
sys.path.insert(0, "tools"); sys.path.insert(0, ".scratch/s24")
from hang_watchdog import Watchdog
import nvfp4rt
from nvfp4rt import driver
from nvfp4rt.bench import time_op
from nvfp4rt.ops.gemm_wgmma_cluster import GemmClusterPlan
import exp1h as H
import warm

wd = Watchdog(120)
H.wd = wd
print(nvfp4rt.device().properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)
keep = []
STAGES = [int(s) for s in (sys.argv[1:] or ["1", "3", "6"])]


def best(f, n=3, iters=40):
    wd.arm("timing")
    r = min(time_op(f, iters=iters).median_us for _ in range(n))
    wd.disarm()
    return r


def rounds(fns, n=2):
    res = {nm: [] for nm in fns}
    for _ in range(n):
        for nm, f in fns.items():
            res[nm].append(best(f))
    return res


for (m, n, k) in [(128, 7168, 16384), (128, 4096, 7168), (128, 7168, 2048)]:
    d, args, c = H.gemm_args(m, n, k, 1, "competition")
    plans = {"base": GemmClusterPlan(m, n, k, 1)}
    b, sfb = args[1], args[3]
    half_b, half_s = (k // 2) // 2, (k // 16) // 2   # krank 1's (or a pair's second run's) first byte
    for S in STAGES:
        p = GemmClusterPlan(m, n, k, 1)
        warm.swap_decode(p._decode, warm.gemm_regions(b.ptr, k // 2, sfb.ptr, k // 16, n, (0, half_b), (0, half_s), S),
                         keep=keep)
        plans[f"warm{S}"] = p
    H.check_gemm(plans[f"warm{STAGES[-1]}"], m, n, k, 1, f"warm{STAGES[-1]} {m}x{n}x{k}", dists=("competition",))
    for nm, p in plans.items():
        wd.arm(nm); p(*args); driver.call("cuCtxSynchronize"); wd.disarm()
    res = rounds({nm: (lambda p=p: p(*args)) for nm, p in plans.items()})
    print(f"{m}x{n}x{k} {plans['base']!r}", flush=True)
    for nm in plans:
        print(f"  {nm:8s} whole call " + "  ".join(f"{a:.2f}" for a in res[nm]), flush=True)

# grouped case 3 (m-tile kernel, whole tiles: every CTA starts at stage 0 of its tile)
from nvfp4rt.bench_grouped_gemm import GroupedGemmBench
from nvfp4rt.ops import grouped_gemm as GG
from nvfp4rt.ops.gemm import gemm_raw
gb = GroupedGemmBench()
st = gb.make_inputs({"case": 3}, np.random.default_rng())
layouts = [GG._raw_groups([v])[0][3] for v in st.views]
plans = {"base": GG.plan_grouped_gemm(st.shapes, layouts=layouts)}
for S in STAGES:
    p = GG.plan_grouped_gemm(st.shapes, layouts=layouts)
    regs = []
    for (mg, ng, kg), v in zip(st.shapes, st.views):
        regs += warm.gemm_regions(v[1].ptr, kg // 2, v[3].ptr, kg // 16, ng, (0,), (0,), S)
    warm.swap_decode(p._decode, regs, grouped=True, keep=keep)
    plans[f"warm{S}"] = p
for nm, p in plans.items():
    wd.arm(nm); p(st.views); driver.call("cuCtxSynchronize"); wd.disarm()
gb.run = lambda state: plans[f"warm{STAGES[-1]}"](state.views)
try:
    gb.check(st); print("  grouped warm check OK", flush=True)
except Exception as e:
    print("  grouped warm check FAIL", e, flush=True)
fns = {nm: (lambda p=p: p(st.views)) for nm, p in plans.items()}
fns["per_group_gemm"] = lambda: [gemm_raw(*v) for v in st.views]
res = rounds(fns)
print(f"grouped case 3 {plans['base']!r}", flush=True)
for nm in fns:
    print(f"  {nm:14s} whole call " + "  ".join(f"{a:.2f}" for a in res[nm]), flush=True)
print("done", time.strftime("%H:%M:%S"), flush=True)
