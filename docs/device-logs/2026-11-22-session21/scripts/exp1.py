"""Session 21, device run 1: the in-kernel A decode (A_FP4) against the decode prepass.  (a) correctness on the
GEMM's schedules (K split, pairs, stream-K and whole tiles over clusters of 1) and the dual's tiles, ragged m/n/k and
l = 2, both distributions, NaN-poisoned c; (b) whole call / kernel alone, two interleaved rounds, best of 3 medians of
40 (us), L2 cleared."""
import sys, time
sys.path.insert(0, "tools"); sys.path.insert(0, ".scratch/s21")
from hang_watchdog import Watchdog
import nvfp4rt
from nvfp4rt import driver
from nvfp4rt.bench import time_op
from nvfp4rt.ops.gemm_wgmma_cluster import GemmClusterPlan
from nvfp4rt.ops.dual_gemm_tiles import DualGemmTilesPlan
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


print("== (a) correctness, a_fp4=True", flush=True)
for (m, n, k, l), kw in [((128, 7168, 16384, 1), {}), ((128, 4096, 7168, 1), {}), ((128, 7168, 2048, 1), {}),
                         ((200, 1000, 576, 2), {}), ((1, 300, 64, 1), {}), ((77, 513, 320, 1), dict(ksplit=2)),
                         ((300, 2048, 4096, 1), dict(cluster=1)), ((640, 3072, 4096, 1), {}),
                         ((64, 3000, 5120, 1), dict(cluster=1, units_per_cluster=7)),
                         ((130, 2048, 7168, 1), dict(ksplit=4)), ((128, 4096, 4096, 1), dict(ksplit=8))]:
    p = GemmClusterPlan(m, n, k, l, a_fp4=True, **kw)
    print(f"  {p!r}", flush=True)
    H.check_gemm(p, m, n, k, l, f"gemm {m}x{n}x{k}x{l} {kw}")
for (m, n, k, l), kw in [((256, 4096, 7168, 1), {}), ((256, 3072, 4096, 1), {}), ((512, 3072, 7168, 1), {}),
                         ((200, 1000, 1536, 2), {}), ((333, 1500, 2112, 1), {})]:
    p = DualGemmTilesPlan(m, n, k, l, a_fp4=True, **kw)
    print(f"  {p!r}", flush=True)
    H.check_dual(p, m, n, k, l, f"dual {m}x{n}x{k}x{l} {kw}")
print("FAILS:", H.FAILS, flush=True)

print("== (b) whole call / kernel alone (us): prepass vs a_fp4, two rounds, best of 3 medians", flush=True)
CASES = [("gemm", (128, 7168, 16384)), ("gemm", (128, 4096, 7168)), ("gemm", (128, 7168, 2048)),
         ("dual", (256, 4096, 7168)), ("dual", (512, 3072, 7168)), ("dual", (256, 3072, 4096))]
for kind, (m, n, k) in CASES:
    d, args, c = (H.dual_args if kind == "dual" else H.gemm_args)(m, n, k, 1, "competition")
    P = DualGemmTilesPlan if kind == "dual" else GemmClusterPlan
    plans = {}
    for name, a4 in (("prepass", False), ("a_fp4", True)):
        p = P(m, n, k, 1, a_fp4=a4)
        wd.arm(name); p(*args); driver.call("cuCtxSynchronize"); wd.disarm()
        plans[name] = p
    print(f"  {kind} {m}x{n}x{k}: {plans['a_fp4']!r}", flush=True)
    for rnd in range(2):
        row = []
        for name, p in plans.items():
            whole = best(lambda: p(*args))
            alone = best(lambda: p._launch.launch())
            row.append(f"{name} {whole:.2f} / {alone:.2f}")
        print(f"    round {rnd}: " + ";  ".join(row), flush=True)
print("done", flush=True)
