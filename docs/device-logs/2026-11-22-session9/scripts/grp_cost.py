"""Grouped cluster kernel on the H100: DECODE_COST (the schedule's per-unit fixed cost) on cases 1 and 2, whole
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
    plans = {(dc, ec): GC.GroupedGemmClusterPlan(shapes, decode_cost=dc, epilogue_cost=ec)
             for dc in (0.5, 0.65, 0.8, 1.0) for ec in (0, 2, 4)}
    ok = {}
    for dc, p in plans.items():
        fresh = [g[:4] + (nvfp4rt.from_numpy(np.full((1, m, n), np.nan, np.float16)),) for g, (m, n, k) in zip(groups, shapes)]
        p(fresh)
        ok[dc] = all(reference.check(g[4].numpy().transpose(1, 2, 0), r).ok for g, r in zip(fresh, refs))
    t = {dc: [] for dc in plans}
    for _ in range(3):
        for dc, p in plans.items():
            t[dc].append(time_op(lambda: p(groups), iters=60).median_us)
    for dc in sorted({d for d, _ in plans}):
        print(f"case {ci} decode_cost {dc}: " + " | ".join(f"epi {e} {min(t[(d, e)]):7.2f}{'' if ok[(d, e)] else ' FAIL'}"
                                                         for d, e in plans if d == dc), flush=True)
