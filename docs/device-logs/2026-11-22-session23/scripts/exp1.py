"""Session 23, device run 1: does a third consumer warpgroup buy ALU slack per piece?
(A) the session-18 wgmma microbenchmark with 2 and 3 consumer warpgroups and 0..96 ALU instructions per piece;
(B) the real kernel: per-unit time of 2 vs 3 consumer warpgroups in whole tiles (one per CTA, 132 CTAs), from the
kernel-alone time at k = 4096 and 8192 (slope over 16 units); (C) shape 1 with consumer_wgs=3 schedules against the
default plan (kernel alone and whole call, best of 3 medians of 40, L2 cleared, interleaved rounds)."""
import sys, time, subprocess
import numpy as np
sys.path.insert(0, "tools"); sys.path.insert(0, ".scratch/s23")
from hang_watchdog import Watchdog
import nvfp4rt
from nvfp4rt import driver
from nvfp4rt.bench import time_op
from nvfp4rt.ops.gemm_wgmma_cluster import GemmClusterPlan
import exp1h as H

wd = Watchdog(120)
H.wd = wd
dev = nvfp4rt.device()
print(dev.properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)


def best(f, n=3, iters=40):
    wd.arm("timing")
    r = min(time_op(f, iters=iters).median_us for _ in range(n))
    wd.disarm()
    return r


if "A" in sys.argv[1:]:
    print("== (A) microbenchmark", flush=True)
    wd.arm("wgrate")
    subprocess.run([sys.executable, ".scratch/s23/wgrate.py"], check=False)
    wd.disarm()

if "B" in sys.argv[1:]:
    print("== (B) per-unit time, whole tiles, 132 CTAs", flush=True)
    keep = []
    for wgs in (2, 3):
        n = 64 * wgs * 132
        t = {}
        for k in (4096, 8192):
            ks = k // 256
            p = GemmClusterPlan(128, n, k, 1, cluster=1, units_per_cluster=ks, consumer_wgs=wgs)
            d, args, c = H.gemm_args(128, n, k, 1, "competition")
            if k == 4096:
                H.check_gemm(p, 128, n, k, 1, f"{wgs}wg 128x{n}x{k}", ("wide",))
            wd.arm("run"); p(*args); driver.call("cuCtxSynchronize"); wd.disarm()
            keep.append((p, args, c, d))
            t[k] = p
        for rnd in range(2):
            a1 = best(lambda: t[4096]._launch.launch())
            a2 = best(lambda: t[8192]._launch.launch())
            per = (a2 - a1) / 16
            print(f"  {wgs} wg n={n}: kernel alone k4096 {a1:.2f}  k8192 {a2:.2f}  -> {per:.4f} us per unit, "
                  f"{per / wgs * 2:.4f} per 128-row unit", flush=True)

if "C" in sys.argv[1:]:
    print("== (C) 128x7168x16384 with three consumer warpgroups", flush=True)
    m, n, k = 128, 7168, 16384
    d, args, c = H.gemm_args(m, n, k, 1, "competition")
    plans = {"default": GemmClusterPlan(m, n, k, 1)}
    for name, kw in (("3wg auto", dict(consumer_wgs=3)),
                     ("3wg sk c1", dict(consumer_wgs=3, cluster=1)),
                     ("3wg ks2", dict(consumer_wgs=3, ksplit=2)),
                     ("3wg ks4", dict(consumer_wgs=3, ksplit=4))):
        try:
            plans[name] = GemmClusterPlan(m, n, k, 1, **kw)
        except Exception as e:
            print(f"  {name}: {type(e).__name__}: {e}", flush=True)
    for name, p in plans.items():
        print(f"  {name}: {p!r}", flush=True)
        H.check_gemm(p, m, n, k, 1, name, ("wide",))
        wd.arm(name); p(*args); driver.call("cuCtxSynchronize"); wd.disarm()
    for rnd in range(2):
        row = []
        for name, p in plans.items():
            row.append(f"{name} {best(lambda: p(*args)):.2f}/{best(lambda: p._launch.launch()):.2f}")
        print(f"  round {rnd} (whole/alone): " + "; ".join(row), flush=True)
print("FAILS:", H.FAILS, flush=True)
print("done", flush=True)
