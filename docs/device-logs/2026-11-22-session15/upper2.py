"""Session 15: the cluster GEMM on the virtual shapes with a one-wave stream-K schedule (units_per_cluster)."""
import time
import numpy as np
import nvfp4rt
from nvfp4rt import data
from nvfp4rt.array import asarray
from nvfp4rt.bench import time_op
from nvfp4rt.ops.gemm_wgmma_cluster import GemmClusterPlan

print(nvfp4rt.device().properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)
def best(f):
    return min(time_op(f, iters=60).median_us for _ in range(3))
SHAPES = [("grouped case 3", 640, 3072, 4096, [15, 16]), ("grouped case 3 c1", 640, 3072, 4096, ["c1"]),
          ("grouped case 4", 512, 4096, 1536, [6]), ("dual 3", 256, 6144, 4096, [16]), ("dual 1", 256, 8192, 7168, [28])]
for name, m, n, k, upcs in SHAPES:
    d = data.gemm_data(m, n, k, 1, seed=None)
    devs = {nm: asarray(d.physical(nm).view(np.uint8) if nm.startswith("sf") else d.physical(nm))
            for nm in ("a", "b", "sfa", "sfb", "c")}
    args = tuple(devs[nm].transpose(1, 2, 0) for nm in ("a", "b", "sfa", "sfb", "c"))
    ref = None
    for upc in upcs:
        try:
            p = GemmClusterPlan(m, n, k, cluster=1, units_per_cluster=16) if upc == 'c1' else GemmClusterPlan(m, n, k, units_per_cluster=upc)
        except Exception as e:
            print(name, upc, "refused:", e); continue
        p.run(*args)
        w = best(lambda: p.run(*args)); kk = best(p._launch.launch)
        print(f"{name:15s} {m}x{n}x{k} upc={upc}: {p!r}\n    whole {w:7.2f} kernel {kk:7.2f}  "
              f"{2*m*n*k/w/1e6:5.0f} TFLOP/s (virtual)", flush=True)
import sys
sys.path.insert(0, "tests")
from test_grouped_gemm import _device_groups
from nvfp4rt.ops.grouped_gemm import grouped_gemm_raw
for ci, shapes in ((3, [(192, 3072, 4096), (320, 3072, 4096)]), (4, [(128, 4096, 1536), (384, 4096, 1536)])):
    d = data.grouped_gemm_data(shapes, seed=None)
    groups = [tuple(x.transpose(1, 2, 0) for x in g) for g in _device_groups(d)]
    grouped_gemm_raw(groups)
    print(f"grouped case {ci} (current dispatch): whole {best(lambda: grouped_gemm_raw(groups)):7.2f}", flush=True)
