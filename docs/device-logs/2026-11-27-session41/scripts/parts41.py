"""Session 41: what competition case 2's call is made of today (timing only; the whole call is the checked op): the
whole call (wide decode, then the cluster GEMM by programmatic dependent launch), the GEMM launch alone (A16 left by
the last call), the decode launch alone, and an empty-ish GEMM: the same plan on one group of 16 rows x 256 x 256
(its launch, start and one unit).  Best of 3 medians of 40, L2 cleared, launch phases spread, 2 interleaved rounds.
Usage: parts41.py"""
import sys
import time

import numpy as np

sys.path.insert(0, ".")
sys.path.insert(0, "tests")
from nvfp4rt import data, driver  # noqa: E402
from nvfp4rt.bench import DriverTimer, get_op, time_op  # noqa: E402
from nvfp4rt.bench_grouped_gemm import GroupedGemmBench  # noqa: F401,E402
from nvfp4rt.ops import grouped_gemm as GG  # noqa: E402
from nvfp4rt.ops import grouped_gemm_cluster as GC  # noqa: E402
from test_grouped_gemm import _device_groups  # noqa: E402

print(driver.device().properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)


def best(f):
    return min(time_op(f, iters=40, warmup=5).median_us for _ in range(3))


dev = driver.device()
adapter = get_op("grouped_gemm")(dev, DriverTimer(dev, None).stream)
st = adapter.make_inputs({"case": 2}, np.random.default_rng())
p = GC.GroupedGemmClusterPlan(st.shapes, [GG._raw_groups([v])[0][3] for v in st.views])
p(st.views)
tiny_shapes = [(16, 256, 256)]
d = data.grouped_gemm_data(tiny_shapes, seed=None, distribution="wide")
tiny_groups = [tuple(g) for g in _device_groups(d)]
q = GC.GroupedGemmClusterPlan(tiny_shapes)
q(tiny_groups)
driver.call("cuCtxSynchronize")
print(f"case 2: {p!r}\ntiny: {q!r}", flush=True)
for rnd in range(2):
    tw, tg, td = best(lambda: p(st.views)), best(p._launch.launch), best(p._decode._launch.launch)
    tt, ttg = best(lambda: q(tiny_groups)), best(q._launch.launch)
    print(f"round {rnd}: case 2 whole {tw:.2f}  gemm alone {tg:.2f}  decode alone {td:.2f}  whole - gemm alone "
          f"{tw - tg:.2f} us; tiny problem whole {tt:.2f}  gemm alone {ttg:.2f}", flush=True)
print("done", time.strftime("%H:%M:%S"))
