"""Session 15: competition grouped case 3 on the m-tile kernel: ring depths (whole calls / kernel alone, us)."""
import sys, time
import numpy as np
sys.path.insert(0, "tests")
import nvfp4rt
from nvfp4rt import data, reference
from nvfp4rt.bench import time_op
from nvfp4rt.ops import grouped_gemm_mtiles as GM
from test_grouped_gemm import _device_groups

print(nvfp4rt.device().properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)
def best(f):
    return min(time_op(f, iters=60).median_us for _ in range(3))
shapes = [(192, 3072, 4096), (320, 3072, 4096)]
d = data.grouped_gemm_data(shapes, seed=None)
refs = reference.grouped_gemm_ref(d.groups)
groups = [tuple(g) for g in _device_groups(d)]
plans = []
for st, ab in [(4, 6), (5, 5), (6, 4), (3, 7), (2, 8), (5, 4)]:
    p = GM.GroupedGemmMTilePlan(shapes, stages=st, a_bufs=ab)
    for g in groups:
        g[4].fill(np.nan)
    p(groups)
    ok = all(reference.check(g[4].numpy().transpose(1, 2, 0), r).ok for g, r in zip(groups, refs))
    print(f"{p!r} ok={ok}", flush=True)
    plans.append(p)
for rnd in range(2):
    for p in plans:
        g = p.geometry
        print(f"round {rnd} stages={g.num_stages} a_bufs={g.a_bufs}: whole {best(lambda: p(groups)):7.2f} "
              f"kernel {best(p._launch.launch):7.2f}", flush=True)
