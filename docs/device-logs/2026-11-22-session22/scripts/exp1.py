"""Session 22, device run 1: the GEMM that decodes A itself (FUSED_A) against the decode prepass.
(a) correctness on the GEMM's schedules, ragged m/n/k, l = 2, both distributions, NaN-poisoned c; repeated calls;
a_wait=0 (every late chunk decoded by the waiting producer too); two fused GEMMs on two streams at once whose grids
cannot both be resident (the timeout path); (b) whole call, interleaved rounds, best of 3 medians of 40 (us), L2
cleared; kernel alone for the prepass plan."""
import sys, time
import numpy as np
sys.path.insert(0, "tools"); sys.path.insert(0, ".scratch/s22")
from hang_watchdog import Watchdog
import nvfp4rt
from nvfp4rt import driver, reference
from nvfp4rt.bench import time_op
from nvfp4rt.ops.gemm_wgmma_cluster import GemmClusterPlan
import exp1h as H

wd = Watchdog(90)
H.wd = wd
dev = nvfp4rt.device()
print(dev.properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)


def best(f, n=3, iters=40):
    wd.arm("timing")
    r = min(time_op(f, iters=iters).median_us for _ in range(n))
    wd.disarm()
    return r


print("== (a) correctness, fused_a=True", flush=True)
CASES = [((128, 7168, 16384, 1), {}), ((128, 4096, 7168, 1), {}), ((128, 7168, 2048, 1), {}),
         ((200, 1000, 576, 2), {}), ((1, 300, 64, 1), {}), ((77, 513, 320, 1), dict(ksplit=2)),
         ((300, 2048, 4096, 1), dict(cluster=1)), ((640, 3072, 4096, 1), {}), ((129, 640, 2112, 2), {}),
         ((64, 3000, 5120, 1), dict(cluster=1, units_per_cluster=7)), ((256, 4096, 7168, 1), {}),
         ((130, 2048, 7168, 1), dict(ksplit=4)), ((128, 4096, 4096, 1), dict(ksplit=8)),
         ((200, 1000, 576, 2), dict(a_wait=0)), ((128, 7168, 2048, 1), dict(a_wait=0)),
         ((77, 513, 320, 1), dict(ksplit=2, a_wait=0)), ((640, 3072, 4096, 1), dict(a_wait=0)),
         ((300, 2048, 4096, 1), dict(cluster=2)), ((200, 1000, 1088, 2), dict(cluster=2, units_per_cluster=3)),
         ((130, 640, 2112, 1), dict(cluster=1, units_per_cluster=5))]
for (m, n, k, l), kw in CASES:
    p = GemmClusterPlan(m, n, k, l, fused_a=True, **kw)
    print(f"  {p!r}", flush=True)
    H.check_gemm(p, m, n, k, l, f"gemm {m}x{n}x{k}x{l} {kw}")
    H.check_gemm(p, m, n, k, l, f"gemm {m}x{n}x{k}x{l} {kw} again")
p = GemmClusterPlan(128, 7168, 16384, 1)
print(f"  default plan: {p!r}", flush=True)

print("== (a2) two fused GEMMs on two streams at once (224 CTAs, 132 SMs)", flush=True)
from nvfp4rt.stream import Stream
s1, s2 = Stream(non_blocking=True), Stream(non_blocking=True)
pa, pb = GemmClusterPlan(128, 7168, 16384, 1, fused_a=True), GemmClusterPlan(128, 7168, 16384, 1, fused_a=True)
for rep in range(3):
    da, aa, ca = H.gemm_args(128, 7168, 16384, 1, "wide")
    db, ab, cb = H.gemm_args(128, 7168, 16384, 1, "wide")
    wd.arm("two streams"); t0 = time.perf_counter()
    pa(*aa, stream=s1); pb(*ab, stream=s2)
    driver.call("cuCtxSynchronize"); dt = time.perf_counter() - t0; wd.disarm()
    for tag, d, c in (("A", da, ca), ("B", db, cb)):
        res = reference.check(c.numpy().transpose(1, 2, 0), reference.gemm_ref(d.a, d.b, d.sfa, d.sfb))
        print(f"  rep {rep} plan {tag}: {'OK' if res.ok else 'FAIL ' + str(res)}  ({dt*1e3:.2f} ms both)", flush=True)
        if not res.ok:
            H.FAILS.append(f"two streams {tag}")
print("FAILS:", H.FAILS, flush=True)

print("== (b) whole call (us): prepass vs fused, kernel alone of the prepass plan; rounds interleaved", flush=True)
for (m, n, k) in [(128, 7168, 16384), (128, 4096, 7168), (128, 7168, 2048), (256, 4096, 7168), (640, 3072, 4096)]:
    d, args, c = H.gemm_args(m, n, k, 1, "competition")
    plans = {}
    for name, fa in (("prepass", False), ("fused", True)):
        p = GemmClusterPlan(m, n, k, 1, fused_a=fa)
        wd.arm(name); p(*args); driver.call("cuCtxSynchronize"); wd.disarm()
        plans[name] = p
    print(f"  {m}x{n}x{k}: {plans['fused']!r}", flush=True)
    for rnd in range(3):
        row = []
        for name, p in plans.items():
            whole = best(lambda: p(*args))
            row.append(f"{name} {whole:.2f}")
        alone = best(lambda: plans["prepass"]._launch.launch())
        print(f"    round {rnd}: " + ";  ".join(row) + f";  prepass kernel alone {alone:.2f}", flush=True)
print("done", flush=True)
