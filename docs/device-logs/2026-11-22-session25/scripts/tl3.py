"""Session 25 run E: where the K split's epilogue spends its time (tlks.py stamps + session 24's tl_gemm), kernel alone
(A16 decoded before), 128x7168x16384 and 128x7168x2048, three calls each after an L2 clear; us relative to each CTA's
own loop end unless said."""
import sys, time
import numpy as np
sys.path.insert(0, "tools"); sys.path.insert(0, ".scratch/s25")
from hang_watchdog import Watchdog
import nvfp4rt
from nvfp4rt import driver
from nvfp4rt.bench import time_op, DriverTimer
from nvfp4rt.memory import DeviceAllocation
from nvfp4rt.module import load
from nvfp4rt.ops import gemm_wgmma_cluster as G
from nvfp4rt.ops.gemm_wgmma_cluster import GemmClusterPlan
from nvfp4rt.ptxsource import render
import exp1h as H
import timeline, tlks

wd = Watchdog(120)
H.wd = wd
print(nvfp4rt.device().properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)
TEXT = open("ptx/gemm_nvfp4_wgmma_cluster.ptx").read()
keep = []


def read(alloc, n, width):
    buf = np.zeros(n * width, np.int64)
    driver.call("cuMemcpyDtoH", buf.ctypes.data, alloc.ptr, buf.nbytes)
    return buf.reshape(n, width).astype(float)


for (m, n, k) in [(128, 7168, 16384), (128, 7168, 2048), (64, 7168, 4096)]:
    d, args, c = H.gemm_args(m, n, k, 1, "competition")
    p = GemmClusterPlan(m, n, k, 1)
    wd.arm("prep"); p(*args); driver.call("cuCtxSynchronize"); wd.disarm()
    tm0 = time_op(lambda: p._launch.launch(), iters=40).median_us
    kb = DeviceAllocation(p.geometry.grid * 64, p.device)
    mod = load(tlks.tl_ks(timeline.tl_gemm(render(TEXT, "sm_90a", p.constants)), kb.ptr), target="sm_90a")
    kern = mod.kernel(G._ENTRY)
    kern.set_max_dynamic_shared(p.shared_mem)
    p.kernel, p._launch, p._repeat = kern, None, None
    p._ws = DeviceAllocation(p.geometry.grid * 64, p.device)
    keep.append((mod, kb, p))
    wd.arm("prep"); p(*args); driver.call("cuCtxSynchronize"); wd.disarm()
    tm = time_op(lambda: p._launch.launch(), iters=40).median_us
    print(f"{m}x{n}x{k} {p!r}: kernel alone {tm0:.2f} us committed, {tm:.2f} instrumented", flush=True)
    for rep in range(3):
        tmr = DriverTimer(); tmr.clear_l2()
        p._launch.launch(); driver.call("cuCtxSynchronize")
        g = read(p._ws, p.geometry.grid, 8)
        s = read(kb, p.geometry.grid, 8)
        e0 = g[:, 0].min()
        le = g[:, 4]
        pair = le.reshape(-1, 2)
        skew = np.abs(pair[:, 0] - pair[:, 1])
        q = lambda x: f"{np.min(x) / 1e3:5.2f} {np.median(x) / 1e3:5.2f} {np.max(x) / 1e3:5.2f}"
        pl = np.repeat(pair.max(axis=1), 2)      # the pair's later loop end
        print(f"  call {rep}: loop end (from first entry) {q(le - e0)}; pair skew {q(skew)}; exit (from first entry) {q(s[:, 4] - e0)}", flush=True)
        print(f"    from the pair's later loop end: reduce bar {q(s[:, 0] - pl)} | parked {q(s[:, 1] - pl)} | sent {q(s[:, 2] - pl)}"
              f" | recv {q(s[:, 3] - pl)} | exit {q(s[:, 4] - pl)}", flush=True)
print("done", time.strftime("%H:%M:%S"), flush=True)
