"""Grouped cluster kernel on cases 1 and 2 with the new schedule costs: clusters of 2 (default) against 4, whole
calls, best of three medians, us; every output checked."""
import sys
import numpy as np
sys.path.insert(0, "tests")
import nvfp4rt
from nvfp4rt import data, reference
from nvfp4rt.bench import time_op
from nvfp4rt.ops import grouped_gemm_cluster as GC
from test_grouped_gemm import _device_groups

CASES = [[(m, 4096, 7168) for m in (80, 176, 128, 72, 64, 248, 96, 160)],
         [(m, 7168, 2048) for m in (40, 76, 168, 72, 164, 148, 196, 160)]]
print(nvfp4rt.device().properties.name, flush=True)
for ci, shapes in enumerate(CASES, 1):
    d = data.grouped_gemm_data(shapes, seed=None)
    groups = [tuple(g) for g in _device_groups(d)]
    refs = reference.grouped_gemm_ref(d.groups)
    plans = {cl: GC.GroupedGemmClusterPlan(shapes, cluster=cl) for cl in (2, 4)}
    ok, t = {}, {cl: [] for cl in plans}
    for cl, p in plans.items():
        fresh = [g[:4] + (nvfp4rt.from_numpy(np.full((1, m, n), np.nan, np.float16)),) for g, (m, n, k) in zip(groups, shapes)]
        p(fresh)
        ok[cl] = all(reference.check(g[4].numpy().transpose(1, 2, 0), r).ok for g, r in zip(fresh, refs))
    for _ in range(3):
        for cl, p in plans.items():
            t[cl].append(time_op(lambda: p(groups), iters=60).median_us)
    print(f"case {ci}: " + " | ".join(f"cluster {cl} {min(x):7.2f}{'' if ok[cl] else ' FAIL'}" for cl, x in t.items()),
          flush=True)
