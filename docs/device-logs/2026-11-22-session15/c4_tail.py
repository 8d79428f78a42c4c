"""Session 15: the slow calls behind case 4's p90 in the bench (13): per-call spread of the m-tile plan's rings."""
import sys, time
import numpy as np
sys.path.insert(0, "tests")
import nvfp4rt
from nvfp4rt import data
from nvfp4rt.bench import time_op
from nvfp4rt.ops import grouped_gemm_mtiles as GM, grouped_gemm as GG
from test_grouped_gemm import _device_groups

print(nvfp4rt.device().properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)
for shapes in ([(128, 4096, 1536), (384, 4096, 1536)], [(192, 3072, 4096), (320, 3072, 4096)]):
    d = data.grouped_gemm_data(shapes, seed=None)
    groups = [tuple(g) for g in _device_groups(d)]
    plans = [("(2,8)", GM.GroupedGemmMTilePlan(shapes)), ("(4,6)", GM.GroupedGemmMTilePlan(shapes, stages=4, a_bufs=6)),
             ("first", GG.plan_grouped_gemm(shapes, variant="wgmma"))]
    for p in plans:
        p[1](groups)
    for rnd in range(3):
        for name, p in plans:
            t = time_op(lambda: p(groups), iters=100)
            s = np.array(t.samples)
            print(f"round {rnd} m0={shapes[0][0]} {name}: median {t.median_us:7.2f} p10 {t.p10_us:7.2f} p90 {t.p90_us:7.2f} "
                  f"max {s.max():7.1f} slow(>2x median) {int((s > 2 * t.median_us).sum())}", flush=True)
