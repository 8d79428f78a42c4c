"""Session 28, device run 7: where grouped case 1's time goes on the m-tile plan, against the K split.  Timing (whole /
kernel alone, L2 cleared, best of 3 medians of 40, two rounds) of the default schedule (stream-K, clusters of 2, 75
units) and whole tiles (3 per CTA: cluster 1 or 2 with 84 units), then tools/profile_cluster_kernel.py's counters
(instrument()) on the same plans and on the K split of 128x7168x16384: cycles per consumer thread and their shares."""
import os, sys, time
import numpy as np
sys.path.insert(0, "tools"); sys.path.insert(0, ".scratch/s28")
from hang_watchdog import Watchdog
import nvfp4rt
from nvfp4rt import driver
from nvfp4rt.bench import get_op, DriverTimer
from nvfp4rt.ops import grouped_gemm as GG
from nvfp4rt.ops.grouped_gemm_mtiles import GroupedGemmMTilePlan
from nvfp4rt.ops.gemm_wgmma_cluster import GemmClusterPlan
from nvfp4rt.ptxsource import render
from nvfp4rt.reference import check, gemm_ref
import profile_cluster_kernel as PK
import exp1h as H
import s28h

wd = Watchdog(150)
H.wd = s28h.wd = wd
dev = nvfp4rt.device()
print(dev.properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)
TEXT = open("ptx/gemm_nvfp4_wgmma_cluster.ptx").read()
bench = get_op("grouped_gemm")(device=dev)
state = bench.make_inputs({"case": 1}, np.random.default_rng())
layouts = [GG._raw_groups([v])[0][3] for v in state.views]
KW = {"default": {}, "cl1 upc84": dict(cluster=1, units_per_cluster=84), "cl2 upc84": dict(cluster=2, units_per_cluster=84)}
plans = {nm: GroupedGemmMTilePlan(state.shapes, layouts, **kw) for nm, kw in KW.items()}
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
        res[nm].append((s28h.best(lambda p=p: p(state.views)), s28h.best(lambda p=p: p._launch.launch())))
for nm in plans:
    print(f"case 1 {nm:10s} whole / kernel: " + "  ".join(f"{a:.2f} / {b:.2f}" for a, b in res[nm]), flush=True)

timer = DriverTimer()


def profile(label, p, call, units_per_cta, runs=10):
    text = PK.instrument(render(TEXT, "sm_90a", p.constants))
    s28h.swap(p, text)
    mod = s28h.keep[-1]
    call(); driver.call("cuCtxSynchronize")
    ptr, size = driver.call("cuModuleGetGlobal", mod.handle, PK.GLOBAL.encode())
    total = np.zeros(PK.NSLOTS, np.uint64)
    for _ in range(runs):
        timer.clear_l2()
        driver.call("cuMemsetD8", ptr, 0, size)
        wd.arm(label); call(); driver.call("cuCtxSynchronize"); wd.disarm()
        buf = np.zeros(PK.NSLOTS, np.uint64)
        driver.call("cuMemcpyDtoH", buf.ctypes.data, ptr, size)
        total += buf
    print(PK.report(total, label), flush=True)
    s = {k: float(total[v]) for k, v in PK.SLOTS.items()}
    per = s["c_total"] / max(s["c_threads"], 1)
    epi = s["c_epilogue"] / max(s["c_threads"], 1)
    print(f"    {label}: {per:,.0f} clk per consumer thread, epilogue {epi:,.0f}; (total - epilogue) / {units_per_cta} units "
          f"= {(per - epi) / units_per_cta:,.0f} clk per unit", flush=True)


for nm, kw in KW.items():
    p = GroupedGemmMTilePlan(state.shapes, layouts, **kw)
    profile(f"case 1 {nm}", p, lambda p=p: p(state.views), p.geometry.units_per_cluster)
m, n, k = 128, 7168, 16384
d, args, c = H.gemm_args(m, n, k, 1, "competition")
p = GemmClusterPlan(m, n, k, 1)
profile("gemm 128x7168x16384 ksplit", p, lambda: p(*args), 32)
d2, args2, c2 = H.gemm_args(1408, 4096, 7168, 1, "competition")
p2 = GemmClusterPlan(1408, 4096, 7168, 1)
profile("gemm 1408x4096x7168 stream-K", p2, lambda: p2(*args2), p2.geometry.units_per_cluster)
print("done", time.strftime("%H:%M:%S"), flush=True)
