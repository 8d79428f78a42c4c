"""Session 24, device run E: %globaltimer timelines (timeline.py) of the decode prepass and the GEMM in the whole call
(decode + GEMM under PDL) and of the GEMM alone, L2 cleared before each call (the last of 40 timed calls is read).
Times in us; whole call relative to the first decode CTA's start, kernel alone to the first GEMM CTA's entry."""
import sys, time
import numpy as np
sys.path.insert(0, "tools"); sys.path.insert(0, ".scratch/s24")
from hang_watchdog import Watchdog
import nvfp4rt
from nvfp4rt import driver
from nvfp4rt.bench import time_op
from nvfp4rt.memory import DeviceAllocation
from nvfp4rt.module import load
from nvfp4rt.ops import gemm_wgmma_cluster as G, decode_a16 as D
from nvfp4rt.ops.gemm_wgmma_cluster import GemmClusterPlan
from nvfp4rt.ptxsource import render
import exp1h as H
import timeline, warm

wd = Watchdog(120)
H.wd = wd
print(nvfp4rt.device().properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)
TEXT = open("ptx/gemm_nvfp4_wgmma_cluster.ptx").read()
keep = []


def instrument(p, grouped):
    mod = load(timeline.tl_gemm(render(TEXT, "sm_90a", p.constants)), target="sm_90a")
    kern = mod.kernel(G._ENTRY)
    kern.set_max_dynamic_shared(p.shared_mem)
    p.kernel, p._launch, p._repeat = kern, None, None
    if hasattr(p, "_launched_maps"):
        p._launched_maps = {}
    p._ws = DeviceAllocation(p.geometry.grid * 64, p.device)
    dbuf = DeviceAllocation(p._decode.grid * 16, p.device)
    dmod = load(timeline.tl_decode(render(warm.TEXT, "sm_90a", {"NORMAL_OPERANDS": 0, "GROUPED": int(grouped)}), dbuf.ptr),
                target="sm_90a")
    p._decode.kernel, p._decode._launch = dmod.kernel(D._ENTRY), None
    keep.append((mod, dmod, p, dbuf))
    return dbuf


def read(alloc, n, width):
    buf = np.zeros(n * width, np.int64)
    driver.call("cuMemcpyDtoH", buf.ctypes.data, alloc.ptr, buf.nbytes)
    return buf.reshape(n, width).astype(float)


def show(title, p, dbuf, call, whole, clear=True):
    wd.arm(title); call(); driver.call("cuCtxSynchronize"); wd.disarm()
    wd.arm("t"); tm = time_op(call, iters=40, clear_l2=clear).median_us; wd.disarm()
    g = read(p._ws, p.geometry.grid, 8)
    d = read(dbuf, p._decode.grid, 2)
    t0 = d[:, 0].min() if whole else g[:, 0].min()
    q = lambda x: f"{(np.min(x) - t0) / 1e3:6.2f} {(np.median(x) - t0) / 1e3:6.2f} {(np.max(x) - t0) / 1e3:6.2f}"
    print(f"{title}: median {tm:.2f} us (timeline of the last call; min median max, us)", flush=True)
    if whole:
        print(f"    decode start      {q(d[:, 0])}\n    decode end        {q(d[:, 1])}", flush=True)
    print(f"    gemm entry        {q(g[:, 0])}\n    A16 prod. wait    {q(g[:, 6])}\n    SEG_LOOP          {q(g[:, 1])}\n"
          f"    first full        {q(g[:, 2])}\n    first afull       {q(g[:, 3])}\n    loop end          {q(g[:, 4])}", flush=True)


for (m, n, k) in [(128, 7168, 2048)]:
    d, args, c = H.gemm_args(m, n, k, 1, "competition")
    p = GemmClusterPlan(m, n, k, 1)
    dbuf = instrument(p, False)
    show(f"{m}x{n}x{k} whole call", p, dbuf, lambda: p(*args), True)
    show(f"{m}x{n}x{k} kernel alone", p, dbuf, lambda: p._launch.launch(), False)
    show(f"{m}x{n}x{k} kernel alone, L2 not cleared", p, dbuf, lambda: p._launch.launch(), False, clear=False)
    show(f"{m}x{n}x{k} whole call, L2 not cleared", p, dbuf, lambda: p(*args), True, clear=False)

print("done", time.strftime("%H:%M:%S"), flush=True)
