"""Session 25 run F: is the whole call's bimodality (two modes ~1.1 us apart, flipping between rounds) the host's gap
between the decode launch and the GEMM launch?  Committed kernels, no change: the plan call against its two prepared
launches issued back to back, and with a host busy-wait of 30 or 200 us between them (the timer's 500 us spin after
each L2 clear keeps the GPU busy, so the gap never shows as idle time).  Six interleaved rounds, best of 3 medians of 40."""
import sys, time
import numpy as np
sys.path.insert(0, "tools"); sys.path.insert(0, ".scratch/s25")
from hang_watchdog import Watchdog
import nvfp4rt
from nvfp4rt import driver
from nvfp4rt.bench import time_op
from nvfp4rt.ops.gemm_wgmma_cluster import GemmClusterPlan
import exp1h as H

wd = Watchdog(120)
H.wd = wd
print(nvfp4rt.device().properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)


def best(f, n=3, iters=40):
    wd.arm("timing")
    r = min(time_op(f, iters=iters).median_us for _ in range(n))
    wd.disarm()
    return r


def busy(us):
    t = time.perf_counter() + us * 1e-6
    while time.perf_counter() < t:
        pass


def rounds(fns, n=6):
    res = {nm: [] for nm in fns}
    for _ in range(n):
        for nm, f in fns.items():
            res[nm].append(best(f))
    for nm in fns:
        print(f"  {nm:18s} " + " ".join(f"{a:.2f}" for a in res[nm]) + f"  (median {np.median(res[nm]):.2f})", flush=True)


def variants(call, dl, gl):
    return {"plan call": call, "pair": lambda: (dl.launch(), gl.launch()),
            "pair +30us": lambda: (dl.launch(), busy(30), gl.launch()),
            "pair +200us": lambda: (dl.launch(), busy(200), gl.launch()),
            "gemm alone": lambda: gl.launch()}


for (m, n, k) in [(128, 7168, 16384), (128, 7168, 2048)]:
    d, args, c = H.gemm_args(m, n, k, 1, "competition")
    p = GemmClusterPlan(m, n, k, 1)
    wd.arm("prep"); p(*args); driver.call("cuCtxSynchronize"); wd.disarm()
    print(f"{m}x{n}x{k} {p!r}", flush=True)
    rounds(variants(lambda: p(*args), p._decode._launch, p._launch))

from nvfp4rt.bench_grouped_gemm import GroupedGemmBench
from nvfp4rt.ops import grouped_gemm as GG
gb = GroupedGemmBench()
st = gb.make_inputs({"case": 3}, np.random.default_rng())
layouts = [GG._raw_groups([v])[0][3] for v in st.views]
p = GG.plan_grouped_gemm(st.shapes, layouts=layouts)
wd.arm("prep"); p(st.views); driver.call("cuCtxSynchronize"); wd.disarm()
print(f"grouped case 3 {p!r}", flush=True)
fns = variants(lambda: GG.grouped_gemm_raw(st.views), p._decode._launch, p._launch)
rounds(fns)
print("done", time.strftime("%H:%M:%S"), flush=True)
