"""Session 21, device run 4: the staged decode (a 1024-thread CTA per idle SM, units in the K split's order, counted
per unit) beside the A16_WAIT GEMM, against the default decode + GEMM.  (a) correctness, both distributions, with
repeat calls; (b) whole call / kernel alone, two interleaved rounds, best of 3 medians of 40 (us), L2 cleared."""
import sys, time
sys.path.insert(0, "tools"); sys.path.insert(0, ".scratch/s21")
import numpy as np
from hang_watchdog import Watchdog
import nvfp4rt
from nvfp4rt import driver
from nvfp4rt.bench import time_op
from nvfp4rt.ops.gemm_wgmma_cluster import GemmClusterPlan
import exp1h as H

wd = Watchdog(90)
H.wd = wd
print(nvfp4rt.device().properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)


def best(f, n=3, iters=40):
    wd.arm("timing")
    r = min(time_op(f, iters=iters).median_us for _ in range(n))
    wd.disarm()
    return r


print("== (a) correctness, staged_decode=True", flush=True)
for (m, n, k, l), kw in [((128, 7168, 16384, 1), {}), ((128, 7168, 2048, 1), {}), ((64, 7168, 4096, 1), {}),
                         ((256, 4096, 7168, 1), dict(ksplit=2)), ((130, 2048, 7168, 1), dict(ksplit=4)),
                         ((200, 1000, 1536, 2), dict(ksplit=2)), ((77, 513, 576, 1), dict(ksplit=3 - 1)),
                         ((300, 640, 4096, 3), dict(ksplit=8))]:
    try:
        p = GemmClusterPlan(m, n, k, l, staged_decode=True, **kw)
    except ValueError as e:
        print(f"  {m}x{n}x{k}x{l} {kw}: {e}", flush=True)
        continue
    print(f"  {p!r}", flush=True)
    H.check_gemm(p, m, n, k, l, f"gemm {m}x{n}x{k}x{l} {kw}")
    cnt = np.zeros(p._decode.units, np.uint32)
    driver.call("cuMemcpyDtoH", cnt.ctypes.data, p._a16_counts.ptr, cnt.nbytes)
    print(f"    counts: {sorted(set(cnt.tolist()))} after {p._epoch} calls", flush=True)
print("FAILS:", H.FAILS, flush=True)

print("== (b) whole call / kernel alone (us), two rounds, best of 3 medians", flush=True)
for (m, n, k) in [(128, 7168, 16384), (128, 7168, 2048), (64, 7168, 4096), (256, 4096, 7168)]:
    d, args, c = H.gemm_args(m, n, k, 1, "competition")
    plans = {"default": GemmClusterPlan(m, n, k, 1)}
    try:
        plans["staged"] = GemmClusterPlan(m, n, k, 1, staged_decode=True)
    except ValueError as e:
        print(f"  {m}x{n}x{k}: {e}", flush=True)
        continue
    for nm, p in plans.items():
        wd.arm(nm); p(*args); driver.call("cuCtxSynchronize"); wd.disarm()
    print(f"  {m}x{n}x{k}: {plans['staged']!r}", flush=True)
    for rnd in range(2):
        row = []
        for nm, p in plans.items():
            row.append(f"{nm} {best(lambda: p(*args)):.2f} / {best(lambda: p._launch.launch()):.2f}")
        print(f"    round {rnd}: " + ";  ".join(row), flush=True)
print("done", flush=True)
