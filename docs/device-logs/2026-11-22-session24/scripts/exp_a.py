"""Session 24, device run A.
(1) per-unit cycles of the K split's loop against the number of CTAs (128 x n x 16384, ksplit 2, n = 7168 .. 896):
    clk2 (committed loop) and clk2_noAB (no transfers after the first lap); steady = (loop - first unit's full wait)/units;
    MHz from the loop's %globaltimer span.
(2) the exact composite probe (B words a piece earlier + early afull tests + 64-bit descriptors) on the three GEMM shapes,
    checked in both distributions, kernel alone in two interleaved rounds."""
import sys, time
import numpy as np
sys.path.insert(0, "tools"); sys.path.insert(0, ".scratch/s24")
from hang_watchdog import Watchdog
import nvfp4rt
from nvfp4rt import driver
from nvfp4rt.bench import time_op
from nvfp4rt.memory import DeviceAllocation
from nvfp4rt.module import load
from nvfp4rt.ops import gemm_wgmma_cluster as G
from nvfp4rt.ops.gemm_wgmma_cluster import GemmClusterPlan
from nvfp4rt.ptxsource import render
import exp1h as H
import probes24
from probes import PROBES

wd = Watchdog(120)
H.wd = wd
print(nvfp4rt.device().properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)
TEXT = open("ptx/gemm_nvfp4_wgmma_cluster.ptx").read()
keep = []
parts = sys.argv[1:] or ["1", "2"]


def best(f, n=3, iters=40):
    wd.arm("timing")
    r = min(time_op(f, iters=iters).median_us for _ in range(n))
    wd.disarm()
    return r


def swap(p, nm, base_text, ws=False):
    mod = load(PROBES[nm](base_text), target="sm_90a")
    kern = mod.kernel(G._ENTRY)
    kern.set_max_dynamic_shared(p.shared_mem)
    p.kernel, p._launch, p._repeat, p._launched_maps = kern, None, None, {}
    if ws:
        p._ws = DeviceAllocation(p.geometry.grid * 8 * 64, p.device)
    keep.append((mod, p))
    return p


if "1" in parts:
    for n in (7168, 3584, 1792, 896):
        m, k = 128, 16384
        d, args, c = H.gemm_args(m, n, k, 1, "competition")
        base = GemmClusterPlan(m, n, k, 1, ksplit=2)
        base_text = render(TEXT, "sm_90a", base.constants)
        wd.arm("base"); base(*args); driver.call("cuCtxSynchronize"); wd.disarm()
        print(f"{m}x{n}x{k} {base!r}; base kernel alone {best(lambda: base._launch.launch()):.2f}", flush=True)
        for nm in ("clk2", "clk2_noAB", "clk2_comp"):
            p = swap(GemmClusterPlan(m, n, k, 1, ksplit=2), nm, base_text, ws=True)
            wd.arm(nm); p(*args); driver.call("cuCtxSynchronize"); wd.disarm()
            t = best(lambda: p._launch.launch())
            buf = np.zeros(p.geometry.grid * 8 * 8, np.int64)
            driver.call("cuMemcpyDtoH", buf.ctypes.data, p._ws.ptr, buf.nbytes)
            r = buf.reshape(p.geometry.grid * 8, 8).astype(float)
            units = r[:, 5]
            med = lambda x: float(np.median(x))
            steady = med((r[:, 0] - r[:, 6]) / units)
            print(f"  {nm:10s} kernel alone {t:.2f} us; units {med(units):.0f}; per unit: loop {med(r[:, 0] / units):.0f},"
                  f" steady {steady:.0f} (first full wait {med(r[:, 6]):.0f} cycles), depbar {med(r[:, 1] / units):.0f},"
                  f" pre {med(r[:, 2] / units):.0f} (afull {med(r[:, 3] / units):.0f}), full {med(r[:, 4] / units):.0f};"
                  f" loop {med(r[:, 7]) / 1000:.2f} us at {med(r[:, 0] / r[:, 7]) * 1000:.0f} MHz", flush=True)

if "2" in parts:
    for (m, n, k) in [(128, 7168, 16384), (128, 4096, 7168), (128, 7168, 2048)]:
        d, args, c = H.gemm_args(m, n, k, 1, "competition")
        plans = {"base": GemmClusterPlan(m, n, k, 1)}
        base_text = render(TEXT, "sm_90a", plans["base"].constants)
        try:
            plans["comp"] = swap(GemmClusterPlan(m, n, k, 1), "comp", base_text)
        except AssertionError as e:
            print(f"{m}x{n}x{k}: comp does not apply ({e})", flush=True)
            continue
        H.check_gemm(plans["comp"], m, n, k, 1, f"comp {m}x{n}x{k}")
        for nm, p in plans.items():
            wd.arm(nm); p(*args); driver.call("cuCtxSynchronize"); wd.disarm()
        res = {nm: [] for nm in plans}
        for rnd in range(2):
            for nm, p in plans.items():
                res[nm].append(best(lambda p=p: p._launch.launch()))
        print(f"{m}x{n}x{k} {plans['base']!r}", flush=True)
        for nm in plans:
            print(f"  {nm:8s} kernel alone " + "  ".join(f"{a:.2f}" for a in res[nm]), flush=True)
    print("FAILS", H.FAILS)
print("done", time.strftime("%H:%M:%S"), flush=True)
