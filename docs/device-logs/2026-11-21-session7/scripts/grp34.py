"""Grouped cases 3 and 4 (and two more small-k problems): the first kernel against the cluster kernel, whole calls."""
import sys
sys.path.insert(0, "tests")
import nvfp4rt
from nvfp4rt import data
from nvfp4rt.bench import time_op
from nvfp4rt.ops import grouped_gemm as GG, grouped_gemm_cluster as GC
from test_grouped_gemm import _device_groups
print(nvfp4rt.device().properties.name, flush=True)
for label, shapes in [("case 3", [(192, 3072, 4096), (320, 3072, 4096)]), ("case 4", [(128, 4096, 1536), (384, 4096, 1536)]),
                      ("4 x (256, 2048, 4096)", [(256, 2048, 4096)] * 4), ("2 x (100, 7168, 2048)", [(100, 7168, 2048)] * 2)]:
    d = data.grouped_gemm_data(shapes, seed=1)
    groups = [tuple(g) for g in _device_groups(d)]
    res = {}
    for v, mk in (("first", lambda: GG.GroupedGemmPlan(shapes)), ("cluster", lambda: GC.GroupedGemmClusterPlan(shapes))):
        p = mk(); p(groups)
        res[v] = min(time_op(lambda: p(groups), iters=60).median_us for _ in range(3))
    print(f"{label}: units {GC.cluster_units(shapes)} | first {res['first']:6.2f} us | cluster {res['cluster']:6.2f} us", flush=True)
