"""Grouped cluster kernel, H100: the committed 8-loop build (ptxas C7511: wgmma serialised) against builds
with fewer unit loops (no C7511). Whole calls, best of three medians of 60, us; every output checked."""
import sys, os
import numpy as np
sys.path.insert(0, "tests")
import nvfp4rt
from nvfp4rt import data, reference
from nvfp4rt.bench import time_op
from nvfp4rt.ops import grouped_gemm_cluster as GC
from test_grouped_gemm import _device_groups

CASES = [[(m, 4096, 7168) for m in (80, 176, 128, 72, 64, 248, 96, 160)],
         [(m, 7168, 2048) for m in (40, 76, 168, 72, 164, 148, 196, 160)],
         [(192, 3072, 4096), (320, 3072, 4096)],
         [(128, 4096, 1536), (384, 4096, 1536)]]
SETS = {1: ["all8", "c1", "four"], 2: ["all8", "c2", "four"], 3: ["all8", "c34"], 4: ["all8", "c34"]}
LOOPS = os.path.abspath(".scratch/loops")
print(nvfp4rt.device().properties.name, flush=True)

def plan_for(shapes, name):
    GC._KERNEL_FILE = os.path.join(LOOPS, name + ".ptx")
    GC._kernel.cache_clear()
    return GC.GroupedGemmClusterPlan(shapes)

for ci, shapes in enumerate(CASES, 1):
    d = data.grouped_gemm_data(shapes, seed=None)
    groups = [tuple(g) for g in _device_groups(d)]
    refs = reference.grouped_gemm_ref(d.groups)
    plans = {name: plan_for(shapes, name) for name in SETS[ci]}
    ok = {}
    for name, p in plans.items():
        fresh = [g[:4] + (nvfp4rt.from_numpy(np.full((1, m, n), np.nan, np.float16)),) for g, (m, n, k) in zip(groups, shapes)]
        p(fresh)
        ok[name] = all(reference.check(g[4].numpy().transpose(1, 2, 0), r).ok for g, r in zip(fresh, refs))
    t = {name: [] for name in plans}
    k = {name: [] for name in plans}
    for _ in range(3):
        for name, p in plans.items():
            t[name].append(time_op(lambda: p(groups), iters=60).median_us)
            k[name].append(time_op(lambda: p._launch.launch(), iters=60).median_us)
    print(f"case {ci}: " + " | ".join(f"{n} full {min(t[n]):7.2f} kernel {min(k[n]):7.2f}{'' if ok[n] else ' FAIL'}"
                                     for n in plans), flush=True)
