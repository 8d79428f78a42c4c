"""Session 20, device run 4: the 256-row dual cluster kernel (four 32 KB a16 buffers) with the unit-aligned ring
(A_UNIT = 1, committed) against the same build with the per-sub-step ring (A_UNIT = 0), on the m = 512 dual shapes
that run it; both checked.  Kernel alone / whole call, two interleaved rounds, best of 3 medians of 40 (us)."""
import sys, time
sys.path.insert(0, "tools"); sys.path.insert(0, ".scratch/s20")
from hang_watchdog import Watchdog
import nvfp4rt
from nvfp4rt import driver
from nvfp4rt.bench import time_op
from nvfp4rt.module import load
from nvfp4rt.ops import dual_gemm_cluster as DCm
from nvfp4rt.ops.dual_gemm_cluster import DualGemmClusterPlan
from nvfp4rt.ptxsource import render
import exp1h as H

wd = Watchdog(90)
H.wd = wd
print(nvfp4rt.device().properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)
TEXT = open("ptx/dual_gemm_nvfp4_wgmma_cluster.ptx").read()
keep = []


def best(f, n=3, iters=40):
    wd.arm("timing")
    r = min(time_op(f, iters=iters).median_us for _ in range(n))
    wd.disarm()
    return r


for (m, n, k) in [(512, 4096, 7168), (512, 3072, 7168)]:
    d, args, c = H.dual_args(m, n, k, 1, "competition")
    plans = {}
    for name in ("A_UNIT=1", "A_UNIT=0"):
        p = DualGemmClusterPlan(m, n, k, 1)
        assert p.constants["A_UNIT"] == 1
        if name == "A_UNIT=0":
            cons = dict(p.constants); cons["A_UNIT"] = 0
            mod = load(render(TEXT, "sm_90a", cons), target="sm_90a")
            kern = mod.kernel(DCm._ENTRY)
            kern.set_max_dynamic_shared(p.shared_mem)
            p.kernel, p._launch, p._repeat, p._launched_maps = kern, None, None, {}
            keep.append(mod)
        H.check_dual(p, m, n, k, 1, f"dual cluster {m}x{n}x{k} {name}")
        plans[name] = p
    keep.append((plans, args, d, c))
    res = {nm: [] for nm in plans}
    for rnd in range(2):
        for nm, p in plans.items():
            wd.arm(nm); p(*args); driver.call("cuCtxSynchronize"); wd.disarm()
            res[nm].append((best(lambda p=p: p._launch.launch()), best(lambda p=p: p(*args))))
    for nm, p in plans.items():
        print(f"dual {m}x{n}x{k} {nm} kernel / whole: " + "  ".join(f"{a:.2f} / {b:.2f}" for a, b in res[nm])
              + f"   {p!r}", flush=True)
print("FAILS:", H.FAILS, "done", time.strftime("%H:%M:%S"), flush=True)
