"""Grouped cluster kernel, H100: accumulators past N/2 defined after each N < 256 loop (dead inside it) against
the committed build.  Whole tiles (m = 128 and m = 256 single groups) and competition cases 1, 2; us."""
import sys, os
import numpy as np
sys.path.insert(0, "tests")
import nvfp4rt
from nvfp4rt import data, reference
from nvfp4rt.bench import time_op
from nvfp4rt.ops import grouped_gemm_cluster as GC
from test_grouped_gemm import _device_groups
ORIG = GC._KERNEL_FILE
L = os.path.abspath(".scratch/loops")
BUILDS = ["committed", "deadpad", "deadpad6", "deadtwo", "deadfour", "full4"]
PROBLEMS = {"m=128 whole tiles": ([(128, 7168, 8192)], dict(clusters=28)),
            "m=256 whole tiles": ([(256, 4096, 7168)], dict(clusters=16)),
            "case 1": ([(m, 4096, 7168) for m in (80, 176, 128, 72, 64, 248, 96, 160)], {}),
            "case 2": ([(m, 7168, 2048) for m in (40, 76, 168, 72, 164, 148, 196, 160)], {})}
NEED = {"deadtwo": (128, 256), "full4": (32, 64, 96, 128), "deadpad6": (64, 96, 128, 160, 192, 256), "deadfour": (64, 128, 192, 256)}
print(nvfp4rt.device().properties.name, flush=True)
for label, (shapes, kw) in PROBLEMS.items():
    d = data.grouped_gemm_data(shapes, seed=None)
    groups = [tuple(g) for g in _device_groups(d)]
    refs = reference.grouped_gemm_ref(d.groups)
    fns = {}
    for b in BUILDS:
        if b == "full4" and max(m for m, _, _ in shapes) > 128:
            continue
        GC._KERNEL_FILE = ORIG if b == "committed" else os.path.join(L, b + ".ptx")
        GC._kernel.cache_clear()
        p = GC.GroupedGemmClusterPlan(shapes, **kw)
        fns[b] = lambda p=p: p(groups)
    ok = {}
    for nm, f in fns.items():
        for g in groups:
            g[4].fill(np.nan)
        f()
        ok[nm] = all(reference.check(g[4].numpy().transpose(1, 2, 0), r).ok for g, r in zip(groups, refs))
    t = {nm: [] for nm in fns}
    for _ in range(3):
        for nm, f in fns.items():
            t[nm].append(time_op(f, iters=60).median_us)
    print(f"{label}: " + " | ".join(f"{nm} {min(t[nm]):6.2f}{'' if ok[nm] else ' FAIL'}" for nm in fns), flush=True)
