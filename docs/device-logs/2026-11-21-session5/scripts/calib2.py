import sys, numpy as np
sys.path.insert(0, "tests")
import nvfp4rt
from nvfp4rt import data
from nvfp4rt.bench import time_op
from nvfp4rt.ops import grouped_gemm_cluster as GC
from test_grouped_gemm import _device_groups

print(nvfp4rt.device().properties.name, flush=True)
def ker(shapes, **kw):
    d = data.grouped_gemm_data(shapes, seed=1)
    groups = [tuple(g) for g in _device_groups(d)]
    plan = GC.GroupedGemmClusterPlan(shapes, **kw)
    plan(groups)
    return time_op(lambda: plan._launch.launch()).median_us, plan
for kw in (dict(), dict(a_bufs=3), dict(stages=2), dict(stages=4, a_bufs=3), dict(stages=5, a_bufs=3), dict(cluster=4)):
    line = []
    for N in (32, 128, 256):
        t1, _ = ker([(N, 256 * 66, 1024)], clusters=66, **kw)
        t4, _ = ker([(N, 256 * 66, 4096)], clusters=66, **kw)
        line.append(f"N={N}: {(t4 - t1) / 12:4.2f} us/unit")
    print(kw, "  ".join(line), flush=True)
CASES = [
    [(m, 4096, 7168) for m in (80, 176, 128, 72, 64, 248, 96, 160)],
    [(m, 7168, 2048) for m in (40, 76, 168, 72, 164, 148, 196, 160)],
    [(192, 3072, 4096), (320, 3072, 4096)],
    [(128, 4096, 1536), (384, 4096, 1536)],
]
for ci, shapes in enumerate(CASES, 1):
    for kw in (dict(decode_cost=0.5), dict(decode_cost=1.0), dict(decode_cost=3.0), dict(decode_cost=100.0)):
        t, plan = ker(shapes, **kw)
        print(f"case {ci} {kw}: kernel {t:6.1f} us split {plan.geometry.split_tiles}/{plan.geometry.tiles}", flush=True)
