"""Session 20, device run 1: the unit-aligned a16 ring (A_UNIT: A_BUFS a multiple of 4, barriers and descriptors
at constant offsets from per-unit bases) against the per-sub-step ring.  Correctness of the A_UNIT builds on the
bench shapes and awkward ones (both distributions, NaN-poisoned), then kernel-alone timings, two interleaved
rounds, best of 3 medians of 40 (us), L2 cleared."""
import sys, time
sys.path.insert(0, "tools"); sys.path.insert(0, ".scratch/s20")
from hang_watchdog import Watchdog
import nvfp4rt
from nvfp4rt import driver
from nvfp4rt.bench import time_op
from nvfp4rt.module import load
from nvfp4rt.ops import gemm_wgmma_cluster as GCm
from nvfp4rt.ops.gemm_wgmma_cluster import GemmClusterPlan
from nvfp4rt.ops.dual_gemm_tiles import DualGemmTilesPlan
from nvfp4rt.ptxsource import render
import exp1h as H

wd = Watchdog(90)
H.wd = wd
dev = nvfp4rt.device()
print(dev.properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)
BASE = open("ptx/gemm_nvfp4_wgmma_cluster.ptx").read()
keep = []


def old_path(p):
    """the same plan with the per-sub-step ring (A_UNIT = 0)"""
    c = dict(p.constants); c["A_UNIT"] = 0
    mod = load(render(BASE, "sm_90a", c), target="sm_90a")
    kern = mod.kernel(GCm._ENTRY)
    kern.set_max_dynamic_shared(p.shared_mem)
    p.kernel, p._launch = kern, None
    p._repeat, p._launched_maps = None, {}
    keep.append(mod)
    return p


def best(f, n=3, iters=40):
    wd.arm("timing")
    r = min(time_op(f, iters=iters).median_us for _ in range(n))
    wd.disarm()
    return r


print("== correctness of A_UNIT builds", flush=True)
for (m, n, k, l), kw in [((128, 7168, 16384, 1), dict(a_bufs=8)), ((128, 7168, 2048, 1), dict(a_bufs=8)),
                         ((128, 4096, 7168, 1), dict(a_bufs=8)), ((200, 1000, 1536, 2), dict(a_bufs=8)),
                         ((77, 520, 3072, 1), dict(a_bufs=8, ksplit=2)), ((300, 2048, 4096, 1), dict(a_bufs=8, cluster=2, stages=2)),
                         ((130, 4096, 2048, 1), dict(a_bufs=4, cluster=4)), ((128, 4096, 7168, 1), dict(a_bufs=8, ksplit=2, ks_stream=True)),
                         ((64, 3000, 5120, 1), dict(a_bufs=8, cluster=1, stages=2, units_per_cluster=7))]:
    p = GemmClusterPlan(m, n, k, l, **kw)
    assert p.constants["A_UNIT"] == 1, p.constants
    H.check_gemm(p, m, n, k, l, f"gemm {m}x{n}x{k}x{l} {kw}")
for (m, n, k, l), kw in [((256, 4096, 7168, 1), dict(stages=2, a_bufs=8)), ((256, 3072, 4096, 1), dict(stages=3, a_bufs=4)),
                         ((200, 1000, 1536, 2), dict(stages=2, a_bufs=8)), ((512, 3072, 7168, 1), dict(stages=2, a_bufs=8, cluster=2))]:
    p = DualGemmTilesPlan(m, n, k, l, **kw)
    assert p.constants["A_UNIT"] == 1, p.constants
    H.check_dual(p, m, n, k, l, f"dual {m}x{n}x{k}x{l} {kw}")
print("FAILS:", H.FAILS, flush=True)

print("== kernel alone (us): two rounds, best of 3 medians", flush=True)
CASES = [("gemm", (128, 7168, 16384), [("default", {}, False), ("3,8 unit", dict(stages=3, a_bufs=8), False),
                                       ("3,8 old", dict(stages=3, a_bufs=8), True), ("4,8 unit", dict(stages=4, a_bufs=8), False)]),
         ("gemm", (128, 7168, 2048), [("default", {}, False), ("3,8 unit", dict(stages=3, a_bufs=8), False),
                                      ("3,8 old", dict(stages=3, a_bufs=8), True), ("4,8 unit", dict(stages=4, a_bufs=8), False)]),
         ("gemm", (128, 4096, 7168), [("default", {}, False), ("3,8 unit", dict(stages=3, a_bufs=8), False),
                                      ("3,8 old", dict(stages=3, a_bufs=8), True)]),
         ("dual", (256, 4096, 7168), [("default", {}, False), ("2,8 unit", dict(stages=2, a_bufs=8), False),
                                      ("2,8 old", dict(stages=2, a_bufs=8), True), ("3,4 unit", dict(stages=3, a_bufs=4), False),
                                      ("3,4 old", dict(stages=3, a_bufs=4), True)]),
         ("dual", (256, 3072, 4096), [("default", {}, False), ("2,8 unit", dict(stages=2, a_bufs=8), False),
                                      ("2,8 old", dict(stages=2, a_bufs=8), True), ("3,4 unit", dict(stages=3, a_bufs=4), False)])]
for kind, (m, n, k), cfgs in CASES:
    d, args, c = (H.dual_args if kind == "dual" else H.gemm_args)(m, n, k, 1, "competition")
    P = DualGemmTilesPlan if kind == "dual" else GemmClusterPlan
    plans = {}
    for name, kw, old in cfgs:
        p = P(m, n, k, 1, **kw)
        if old:
            old_path(p)
        wd.arm(name); p(*args); driver.call("cuCtxSynchronize"); wd.disarm()
        plans[name] = p
    keep.append((plans, args, d, c))
    res = {nm: [] for nm in plans}
    for rnd in range(2):
        for nm, p in plans.items():
            res[nm].append((best(lambda p=p: p._launch.launch()), best(lambda p=p: p(*args))))
    for nm, p in plans.items():
        print(f"{kind} {m}x{n}x{k} {nm:9s} kernel / whole: " + "  ".join(f"{a:.2f} / {b:.2f}" for a, b in res[nm])
              + f"   A_UNIT={p.constants['A_UNIT']} {p!r}", flush=True)
print("done", time.strftime("%H:%M:%S"), flush=True)
