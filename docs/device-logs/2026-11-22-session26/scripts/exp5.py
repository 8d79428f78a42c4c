"""Session 23, device run 5: where a consumer warp's cycles go in the GEMM's unit loop (probe clk: %clock64 around
every wgmma.wait_group, afull and full wait; timing probe) on 128x7168x16384 (K split 2): per unit, medians over the
896 consumer warps; kernel alone with and without the probe."""
import sys, time
import numpy as np
sys.path.insert(0, "tools"); sys.path.insert(0, ".scratch/s26")
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
import probes

wd = Watchdog(90)
H.wd = wd
print(nvfp4rt.device().properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)
TEXT = open("ptx/gemm_nvfp4_wgmma_cluster.ptx").read()
keep = []


def best(f, n=3, iters=40):
    wd.arm("timing")
    r = min(time_op(f, iters=iters).median_us for _ in range(n))
    wd.disarm()
    return r


for (m, n, k) in [(128, 7168, 16384), (128, 7168, 2048)]:
    d, args, c = H.gemm_args(m, n, k, 1, "competition")
    base = GemmClusterPlan(m, n, k, 1)
    base_text = render(TEXT, "sm_90a", base.constants)
    wd.arm("base"); base(*args); driver.call("cuCtxSynchronize"); wd.disarm()
    print(f"{m}x{n}x{k} {base!r}; base kernel alone {best(lambda: base._launch.launch()):.2f}", flush=True)
    for nm in sys.argv[1:]:
        p = GemmClusterPlan(m, n, k, 1)
        mod = load(probes.PROBES[nm](base_text), target="sm_90a")
        kern = mod.kernel(G._ENTRY)
        kern.set_max_dynamic_shared(p.shared_mem)
        ws = DeviceAllocation(p.geometry.grid * 8 * 64, p.device)
        p.kernel, p._launch, p._repeat, p._launched_maps, p._ws = kern, None, None, {}, ws
        keep.append((mod, p, ws))
        wd.arm(nm); p(*args); driver.call("cuCtxSynchronize"); wd.disarm()
        t = best(lambda: p._launch.launch())
        buf = np.zeros(p.geometry.grid * 8 * 8, np.int64)
        driver.call("cuMemcpyDtoH", buf.ctypes.data, ws.ptr, buf.nbytes)
        r = buf.reshape(p.geometry.grid * 8, 8)
        units = np.full(len(r), float((k // 256) // 2))  # K split 2: units per CTA
        per = {nm2: np.median(r[:, i] / units) for i, nm2 in enumerate(("loop", "depbar", "pre", "afull", "full"))}
        rest = per["loop"] - per["depbar"] - per["pre"] - per["full"]
        print(f"  {nm:12s} kernel alone {t:.2f} us; units/CTA {np.median(units):.0f}; cycles per unit: loop {per['loop']:.0f}"
              f" = DEPBAR waits {per['depbar']:.0f} + DEPBAR->fence {per['pre']:.0f} (afull waits {per['afull']:.0f})"
              f" + full waits {per['full']:.0f} + the rest {rest:.0f};  loop p10/p90 "
              f"{np.percentile(r[:, 0] / units, 10):.0f}/{np.percentile(r[:, 0] / units, 90):.0f}", flush=True)
        wg = (np.arange(len(r)) % 8) // 4
        for w in (0, 1):
            sel = r[wg == w]
            print(f"      WG{w}: " + "  ".join(f"{nm2} {np.median(sel[:, i] / units[wg == w]):.0f}" for i, nm2 in
                  enumerate(("loop", "depbar", "pre", "afull", "full"))), flush=True)
        # per CTA: which WG waited more on afull
        d = (r[:, 3].reshape(-1, 8)[:, :4].sum(1) - r[:, 3].reshape(-1, 8)[:, 4:].sum(1)) / units[0] / 4
        print(f"      afull(WG0) - afull(WG1) per warp-unit, per CTA: p10 {np.percentile(d, 10):.0f} median {np.median(d):.0f} p90 {np.percentile(d, 90):.0f}", flush=True)
print("done", time.strftime("%H:%M:%S"), flush=True)
