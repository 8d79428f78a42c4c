import sys, numpy as np
sys.path.insert(0, "tests")
import nvfp4rt
from nvfp4rt import data, reference
from nvfp4rt.ops import grouped_gemm_cluster as GC
from test_grouped_gemm import _device_groups
RAGGED = [(1, 1, 64), (63, 200, 320), (129, 7, 256), (1, 520, 1024), (200, 130, 1088), (300, 520, 640)]
for kw in (dict(clusters=300), dict(clusters=3), dict()):
    d = data.grouped_gemm_data(RAGGED, seed=None, distribution="wide")
    refs = reference.grouped_gemm_ref(d.groups)
    groups = [tuple(g) for g in _device_groups(d)]
    plan = GC.GroupedGemmClusterPlan(RAGGED, **kw)
    plan(groups)
    plan(groups)
    ok = all(reference.check(g[4].numpy().transpose(1, 2, 0), r).ok for g, r in zip(groups, refs))
    print(plan, "ok" if ok else "MISMATCH", flush=True)
    assert ok
