"""Session 27: exact probes (probes27.py) of the K-split GEMM against the committed build: checked in both
distributions, then kernel alone and whole call (two interleaved rounds, best of 3 medians of 40, us), then a
consumer-0 timeline (first visits, %globaltimer) of each build."""
import os, sys, time
import numpy as np
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
import probes27
import tl_pro

wd = Watchdog(120)
H.wd = wd
print(nvfp4rt.device().properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)
TEXT = open("ptx/gemm_nvfp4_wgmma_cluster.ptx").read()
names = sys.argv[1:]
tl_pro.POINTS = [p for p in tl_pro.POINTS if p[1] == 128 and p[0] != "c.synced"]
keep = []
SHAPES = [tuple(map(int, x.split('x'))) for x in os.environ.get('SHAPES', '128x7168x16384,128x7168x2048').split(',')]


def best(f, n=3, iters=40):
    wd.arm("timing")
    r = min(time_op(f, iters=iters).median_us for _ in range(n))
    wd.disarm()
    return r


def swap(p, text):
    mod = load(text, target="sm_90a")
    kern = mod.kernel(G._ENTRY)
    kern.set_max_dynamic_shared(p.shared_mem)
    p.kernel, p._launch, p._repeat, p._launched_maps = kern, None, None, {}
    keep.append(mod)
    return mod


for (m, n, k) in SHAPES:
    d, args, c = H.gemm_args(m, n, k, 1, "competition")
    plans = {"base": GemmClusterPlan(m, n, k, 1)}
    base_text = render(TEXT, "sm_90a", plans["base"].constants)
    for nm in names:
        p = GemmClusterPlan(m, n, k, 1)
        swap(p, probes27.PROBES[nm](base_text))
        plans[nm] = p
    for nm, p in plans.items():
        H.check_gemm(p, m, n, k, 1, f"{m}x{n}x{k} {nm}")
        wd.arm(nm); p(*args); driver.call("cuCtxSynchronize"); wd.disarm()
    keep.append((plans, args, d, c))
    res = {nm: [] for nm in plans}
    whole = {nm: [] for nm in plans}
    for rnd in range(2):
        for nm, p in plans.items():
            whole[nm].append(best(lambda p=p: p(*args)))
        for nm, p in plans.items():
            res[nm].append(best(lambda p=p: p._launch.launch()))
    print(f"{m}x{n}x{k} {plans['base']!r}", flush=True)
    for nm in plans:
        print(f"  {nm:14s} kernel alone " + "  ".join(f"{a:.2f}" for a in res[nm])
              + "   whole " + "  ".join(f"{a:.2f}" for a in whole[nm]), flush=True)
    # timelines
    for nm in plans:
        p = GemmClusterPlan(m, n, k, 1)
        t = base_text if nm == "base" else probes27.PROBES[nm](base_text)
        mod = swap(p, tl_pro.instrument(t))
        wd.arm("tl"); p(*args); driver.call("cuCtxSynchronize"); wd.disarm()
        ptr, size = driver.call("cuModuleGetGlobal", mod.handle, b"s27_dbg")
        g = p.geometry
        for regime, fn in (("kernel", lambda: p._launch.launch()), ("whole", lambda: p(*args))):
            tb = best(fn, n=1)
            buf = np.zeros(size // 8, np.uint64)
            driver.call("cuMemcpyDtoH", buf.ctypes.data, ptr, size)
            tt = buf[:g.grid * 16].reshape(g.grid, 16)[:, :len(tl_pro.POINTS)].astype(np.int64)
            rel = (tt - tt[:, 0].min()) / 1000.0
            line = " ".join(f"{pn}={np.median(rel[:, j]):.2f}/{rel[:, j].max():.2f}" for j, (pn, _, _, _) in enumerate(tl_pro.POINTS))
            print(f"  timeline {nm:12s} {regime:6s} {tb:6.2f} us | {line}", flush=True)
print("FAILS", H.FAILS)
print("done", time.strftime("%H:%M:%S"), flush=True)
