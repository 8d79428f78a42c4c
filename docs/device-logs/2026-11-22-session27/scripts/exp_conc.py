"""Session 27: does other SMs' work slow the K split's loop?  The default plan of 128x7168x16384 (112 CTAs) timelined
(consumer 0: loop start to KSPLIT_REDUCE, per unit) alone and while a 20-CTA K-split GEMM (128x1280x16384, ksplit 2) runs
on the other SMs from another stream; and the helper build with idle helpers at several helper counts (114-132 CTAs)."""
import os, sys, time
import numpy as np
sys.path.insert(0, "tools"); sys.path.insert(0, ".scratch/s27")
from hang_watchdog import Watchdog
import nvfp4rt
from nvfp4rt import driver
from nvfp4rt.module import load
from nvfp4rt.ops import gemm_wgmma_cluster as G
from nvfp4rt.ops.gemm_wgmma_cluster import GemmClusterPlan
from nvfp4rt.ptxsource import render
from nvfp4rt.stream import Stream
import exp1h as H
os.environ.setdefault("RUN", "05")
import tl_help as TL  # noqa: E402  (its module-level run is guarded below)

wd = TL.wd
H.wd = wd
TEXT = TL.TEXT


def swap(p, text):
    mod = load(text, target="sm_90a")
    kern = mod.kernel(G._ENTRY)
    kern.set_max_dynamic_shared(p.shared_mem)
    p.kernel, p._launch, p._repeat, p._launched_maps = kern, None, None, {}
    return mod


def timeline(mod, grid):
    ptr, size = driver.call("cuModuleGetGlobal", mod.handle, b"s27_dbg")
    buf = np.zeros(size // 8, np.uint64)
    driver.call("cuMemcpyDtoH", buf.ctypes.data, ptr, size)
    return buf[:grid * 16].reshape(grid, 16).astype(np.int64)


def pairs_rate(t, npairs_ctas, units):
    r = t[:npairs_ctas]
    per = (r[:, 2] - r[:, 1]) / 1000.0 / units
    mhz = (r[:, 10] - r[:, 9]) / (r[:, 2] - r[:, 1]) * 1000.0
    return np.median(per), np.median(mhz)


def sync():
    wd.arm("sync"); driver.call("cuCtxSynchronize"); wd.disarm()


print(nvfp4rt.device().properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)
s1, s2 = Stream(non_blocking=True), Stream(non_blocking=True)
m, n, k = 128, 7168, 16384
d, args, c = H.gemm_args(m, n, k, 1, "competition")
main = GemmClusterPlan(m, n, k, 1)
mmod = swap(main, TL.instrument(render(TEXT, "sm_90a", main.constants))[0])
main.run(*args, stream=s1); sync()
dd, dargs, dc = H.gemm_args(128, 1280, 16384, 1, "competition")
dummy = GemmClusterPlan(128, 1280, 16384, 1, ksplit=2)
dmod = swap(dummy, TL.instrument(render(TEXT, "sm_90a", dummy.constants))[0])
dummy.run(*dargs, stream=s2); sync()
print(f"main {main!r}\ndummy {dummy!r}", flush=True)
res = {"alone": [], "beside the dummy": []}
for rep in range(8):
    mode = "alone" if rep % 2 == 0 else "beside the dummy"
    sync()
    if mode != "alone":
        dummy._launch.launch()
    main._launch.launch()
    sync()
    tm = timeline(mmod, main.geometry.grid)
    per, mhz = pairs_rate(tm, main.geometry.grid, 32)
    line = f"  {mode:17s} main: {per:.4f} us/unit at {mhz:.0f} MHz, loop {np.median(tm[:, 2] - tm[:, 1]) / 1000:.2f} us"
    if mode != "alone":
        td = timeline(dmod, dummy.geometry.grid)
        t0 = tm[:, 0].min()
        line += (f" | dummy ({dummy.geometry.grid} CTAs) entry {(td[:, 0].min() - t0) / 1000:.2f}..{(td[:, 0].max() - t0) / 1000:.2f},"
                 f" reduce {(np.median(td[:, 2]) - t0) / 1000:.2f} us from main's first entry; main's reduce "
                 f"{(np.median(tm[:, 2]) - t0) / 1000:.2f}")
    res[mode].append(per)
    print(line, flush=True)
for mode, v in res.items():
    print(f"  {mode:17s} median over reps: {np.median(v):.4f} us/unit", flush=True)
keep = [(mmod, dmod, main, dummy, args, dargs, d, dd, c, dc)]
# the helper build with idle helpers, at several helper counts
for helpers in (2, 4, 8, 20):
    try:
        p = GemmClusterPlan(m, n, k, 1, help_tail=6, helpers=helpers)
    except ValueError as e:
        print(f"  helpers={helpers}: {e}", flush=True)
        continue
    pmod = swap(p, TL.instrument(TL.idle_helpers(render(TEXT, "sm_90a", p.constants)))[0])
    keep.append((pmod, p))
    p.run(*args, stream=s1); sync()
    v = []
    for rep in range(3):
        p._launch.launch(); sync()
        v.append(pairs_rate(timeline(pmod, p.geometry.grid), 112, 29))
    print(f"  help_tail=6 helpers={helpers} (idle; grid {p.geometry.grid}): pairs " +
          "  ".join(f"{a:.4f} us/unit at {b:.0f} MHz" for a, b in v), flush=True)
print("done", time.strftime("%H:%M:%S"), flush=True)
