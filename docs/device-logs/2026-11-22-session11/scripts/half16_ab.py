"""Grouped cluster kernel, H100: is the unit time bound by the a16 ring's depth?  The committed kernel (4 a16
buffers of 32 KB) against a variant with 16 KB buffers (tiles of <= 128 rows only) and 4, 6 or 8 of them, on
problems whose groups all have <= 128 rows.  Whole calls, best of three medians of 60, us; outputs checked."""
import sys, os
import numpy as np
sys.path.insert(0, "tests")
import nvfp4rt
from nvfp4rt import data, reference
from nvfp4rt.bench import time_op
from nvfp4rt.ops import grouped_gemm_cluster as GC
from nvfp4rt.ops.gemm import gemm_raw
from test_grouped_gemm import _device_groups
ORIG = GC._KERNEL_FILE
HALF = os.path.abspath(".scratch/loops/half16.ptx")
def plan(shapes, half, a_bufs):
    GC._KERNEL_FILE = HALF if half else ORIG
    GC._A16_BUF_BYTES = 16384 if half else 32768
    GC.A_BUFS_CHOICES = (4, 6, 8) if half else (3, 4)
    GC._kernel.cache_clear()
    p = GC.GroupedGemmClusterPlan(shapes, a_bufs=a_bufs)
    return p
print(nvfp4rt.device().properties.name, flush=True)
PROBLEMS = {"gemm shape 1": [(128, 7168, 16384)],
            "case-1-like (m <= 128)": [(m, 4096, 7168) for m in (80, 128, 72, 64, 96)],
            "case-2-like (m <= 128)": [(m, 7168, 2048) for m in (40, 76, 72, 128)]}
for label, shapes in PROBLEMS.items():
    d = data.grouped_gemm_data(shapes, seed=None)
    groups = [tuple(g) for g in _device_groups(d)]
    refs = reference.grouped_gemm_ref(d.groups)
    plans = {"committed a_bufs=4 (32 KB)": plan(shapes, False, 4)}
    for ab in (4, 6, 8):
        plans[f"half16 a_bufs={ab}"] = plan(shapes, True, ab)
    ok = {}
    for nm, p in plans.items():
        for g in groups:
            g[4].fill(np.nan)
        p(groups)
        ok[nm] = all(reference.check(g[4].numpy().transpose(1, 2, 0), r).ok for g, r in zip(groups, refs))
    fns = {nm: (lambda p=p: p(groups)) for nm, p in plans.items()}
    if len(shapes) == 1:
        views = [tuple(x.transpose(1, 2, 0) for x in g) for g in groups]
        fns["nvfp4rt.gemm"] = lambda: gemm_raw(*views[0])
    t = {nm: [] for nm in fns}
    for _ in range(3):
        for nm, f in fns.items():
            t[nm].append(time_op(f, iters=60).median_us)
    for nm in fns:
        print(f"{label}: {nm:32s} {min(t[nm]):7.2f}{'' if ok.get(nm, True) else ' FAIL'}", flush=True)
