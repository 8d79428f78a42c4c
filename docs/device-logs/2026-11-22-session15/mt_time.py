"""Session 15: the m-tile grouped GEMM against the current dispatch, interleaved, two rounds (whole calls, us)."""
import sys, time
import numpy as np
sys.path.insert(0, "tests")
import nvfp4rt
from nvfp4rt import data, reference
from nvfp4rt.bench import time_op
from nvfp4rt.ops import grouped_gemm as GG, grouped_gemm_mtiles as GM
from test_grouped_gemm import _device_groups

print(nvfp4rt.device().properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)
def best(f):
    return min(time_op(f, iters=60).median_us for _ in range(3))
CASES = [
    [(m, 4096, 7168) for m in (80, 176, 128, 72, 64, 248, 96, 160)],
    [(m, 7168, 2048) for m in (40, 76, 168, 72, 164, 148, 196, 160)],
    [(192, 3072, 4096), (320, 3072, 4096)],
    [(128, 4096, 1536), (384, 4096, 1536)],
]
EXTRA = {1: [dict(cluster=2, units_per_cluster=76), dict(cluster=1)], 2: [dict(cluster=2, units_per_cluster=48), dict(cluster=1)],
         3: [dict(cluster=2, units_per_cluster=16), dict(cluster=2)], 4: [dict(cluster=2, units_per_cluster=6), dict(cluster=2)]}
for ci, shapes in enumerate(CASES, 1):
    d = data.grouped_gemm_data(shapes, seed=None)
    refs = reference.grouped_gemm_ref(d.groups)
    groups = [tuple(g) for g in _device_groups(d)]
    cur = GG.plan_grouped_gemm(shapes)
    plans = [("current " + cur.variant, cur), ("mtiles", GM.GroupedGemmMTilePlan(shapes))]
    for kw in EXTRA[ci]:
        try:
            plans.append((f"mtiles {kw}", GM.GroupedGemmMTilePlan(shapes, **kw)))
        except Exception as e:
            print("refused", kw, e)
    for name, p in plans:
        for g in groups:
            g[4].fill(np.nan)
        p(groups)
        ok = all(reference.check(g[4].numpy().transpose(1, 2, 0), r).ok for g, r in zip(groups, refs))
        print(f"case {ci} {name}: {p!r} ok={ok}", flush=True)
    for rnd in range(2):
        for name, p in plans:
            print(f"round {rnd} case {ci} {name:40s} {best(lambda: p(groups)):8.2f}", flush=True)
