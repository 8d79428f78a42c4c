"""Grouped cases 3 and 4 on the H100: the first grouped kernel and the cluster kernel over schedule knobs,
against nvfp4rt.gemm per group. Whole calls, best of three medians of 60, us; every output checked."""
import sys
import numpy as np
sys.path.insert(0, "tests")
import nvfp4rt
from nvfp4rt import data, reference
from nvfp4rt.bench import time_op
from nvfp4rt.ops import grouped_gemm as GG, grouped_gemm_cluster as GC
from test_grouped_gemm import _device_groups

CASES = {3: [(192, 3072, 4096), (320, 3072, 4096)], 4: [(128, 4096, 1536), (384, 4096, 1536)]}
print(nvfp4rt.device().properties.name, flush=True)
for ci, shapes in CASES.items():
    d = data.grouped_gemm_data(shapes, seed=None)
    groups = [tuple(g) for g in _device_groups(d)]
    refs = reference.grouped_gemm_ref(d.groups)
    views = [tuple(x.transpose(1, 2, 0) for x in g) for g in groups]
    plans = {}
    for upc in (None, 8, 10, 12, 16):
        for depth in (1, 3):
            plans[f"first upc={upc} depth={depth}"] = lambda upc=upc, depth=depth: GG.GroupedGemmPlan(shapes, units_per_cta=upc, wgmma_depth=depth)
    for cl in (2, 4):
        for q in (None, 24, 33, 44):
            for st, ab in ((3, 4), (4, 3)):
                plans[f"cluster{cl} clusters={q} stages={st} a_bufs={ab}"] = lambda cl=cl, q=q, st=st, ab=ab: GC.GroupedGemmClusterPlan(shapes, cluster=cl, clusters=q, stages=st, a_bufs=ab)
    built = {}
    for name, mk in plans.items():
        try:
            built[name] = mk()
        except Exception as e:
            print(f"case {ci} {name}: {type(e).__name__}: {e}", flush=True)
    ok = {}
    for name, p in built.items():
        fresh = [g[:4] + (nvfp4rt.from_numpy(np.full((1, m, n), np.nan, np.float16)),) for g, (m, n, k) in zip(groups, shapes)]
        p(fresh)
        ok[name] = all(reference.check(g[4].numpy().transpose(1, 2, 0), r).ok for g, r in zip(fresh, refs))
    # nvfp4rt.gemm per group, as the bench's peer
    from nvfp4rt.ops.gemm import gemm_raw
    def per_group():
        for v in views:
            gemm_raw(*v)
    per_group()
    t = {name: [] for name in built}
    tp = []
    for _ in range(3):
        tp.append(time_op(per_group, iters=60).median_us)
        for name, p in built.items():
            t[name].append(time_op(lambda: p(groups), iters=60).median_us)
    print(f"case {ci}: gemm per group {min(tp):7.2f}", flush=True)
    for name in sorted(built, key=lambda n: min(t[n])):
        print(f"case {ci}: {name:40s} {min(t[name]):7.2f}{'' if ok[name] else ' FAIL'}  {getattr(built[name], 'geometry', '')!r:.0}", flush=True)
