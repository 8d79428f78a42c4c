"""Session 25 run D: %globaltimer timelines (session 24's timeline.py) of the committed whole call against the
co-resident small decode grid with hoisted loads (hoist.py U=8, 72 registers, 128 threads), shape 1 and 3; plus the
grouped case 3 m-tile GEMM at a 128-register cap with the hoisted grouped decode (U=8, 64 registers).  Three calls
each (after 40 timed ones); times relative to the first decode CTA's start, us."""
import sys, time
import numpy as np
sys.path.insert(0, "tools"); sys.path.insert(0, ".scratch/s25")
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
import timeline, hoist
from capmod import capped

wd = Watchdog(120)
H.wd = wd
print(nvfp4rt.device().properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)
TEXT = open("ptx/gemm_nvfp4_wgmma_cluster.ptx").read()
DTEXT = open("ptx/nvfp4_decode_a16.ptx").read()
keep = []


def instrument(p, grouped, call, U=0, R=0, cap=None):
    gtext = capped(p.constants, cap) if cap else render(TEXT, "sm_90a", p.constants)
    mod = load(timeline.tl_gemm(gtext), target="sm_90a")
    kern = mod.kernel(G._ENTRY)
    kern.set_max_dynamic_shared(p.shared_mem)
    p.kernel, p._launch, p._repeat = kern, None, None
    if hasattr(p, "_launched_maps"):
        p._launched_maps = {}
    p._ws = DeviceAllocation(p.geometry.grid * 64, p.device)
    if U:
        p._decode.grid = -(-p._decode.items * 4 // (128 * U))
        dtext = hoist.hoisted(grouped, U, R)
    else:
        dtext = render(DTEXT, "sm_90a", {"NORMAL_OPERANDS": 0, "GROUPED": int(grouped)})
    dbuf = DeviceAllocation(p._decode.grid * 16, p.device)
    dmod = load(timeline.tl_decode(dtext, dbuf.ptr), target="sm_90a")
    p._decode.kernel, p._decode._launch = dmod.kernel(D._ENTRY), None
    keep.append((mod, dmod, p, dbuf))
    old = D.THREADS
    D.THREADS = 128 if U else old
    try:
        wd.arm("prep"); call(); driver.call("cuCtxSynchronize"); wd.disarm()
    finally:
        D.THREADS = old
    return dbuf


def read(alloc, n, width):
    buf = np.zeros(n * width, np.int64)
    driver.call("cuMemcpyDtoH", buf.ctypes.data, alloc.ptr, buf.nbytes)
    return buf.reshape(n, width).astype(float)


def show(title, p, dbuf, call):
    wd.arm("t"); tm = time_op(call, iters=40).median_us; wd.disarm()
    print(f"{title}: median {tm:.2f} us; decode grid {p._decode.grid}", flush=True)
    for rep in range(3):
        from nvfp4rt.bench import DriverTimer
        tmr = DriverTimer()
        tmr.clear_l2()
        call(); driver.call("cuCtxSynchronize")
        g = read(p._ws, p.geometry.grid, 8)
        d = read(dbuf, p._decode.grid, 2)
        t0 = d[:, 0].min()
        q = lambda x: f"{(np.min(x) - t0) / 1e3:5.2f} {(np.median(x) - t0) / 1e3:5.2f} {(np.max(x) - t0) / 1e3:5.2f}"
        print(f"  call {rep}: dec start {q(d[:, 0])} | dec end {q(d[:, 1])} | entry {q(g[:, 0])} | A16 wait {q(g[:, 6])}"
              f" | 1st full {q(g[:, 2])} | 1st afull {q(g[:, 3])} | loop end {q(g[:, 4])}", flush=True)


for (m, n, k) in [(128, 7168, 16384), (128, 7168, 2048)]:
    d, args, c = H.gemm_args(m, n, k, 1, "competition")
    for U, R in [(0, 0), (8, 72)]:
        p = GemmClusterPlan(m, n, k, 1)
        dbuf = instrument(p, False, lambda: p(*args), U, R)
        show(f"{m}x{n}x{k} U={U}", p, dbuf, lambda: p(*args))

from nvfp4rt.bench_grouped_gemm import GroupedGemmBench
from nvfp4rt.ops import grouped_gemm as GG
from nvfp4rt.ops.grouped_gemm_mtiles import GroupedGemmMTilePlan
gb = GroupedGemmBench()
st = gb.make_inputs({"case": 3}, np.random.default_rng())
layouts = [GG._raw_groups([v])[0][3] for v in st.views]
for U, R, cap in [(0, 0, None), (0, 0, 128), (8, 64, 128)]:
    p = GroupedGemmMTilePlan(list(st.shapes), list(layouts))
    dbuf = instrument(p, True, lambda: p(st.views), U, R, cap)
    show(f"grouped case 3 U={U} cap={cap}", p, dbuf, lambda: p(st.views))
print("done", time.strftime("%H:%M:%S"), flush=True)
