"""Which change makes the grouped cluster kernel's N = 128 unit faster (log 07: 16 KB a16 buffers and loops of
<= 128 rows, 66.1 against 72.8 us)?  Whole tiles of m = 128, n = 7168, k = 8192 (56 CTAs), H100, us."""
import sys, os
import numpy as np
sys.path.insert(0, "tests")
import nvfp4rt
from nvfp4rt import data, reference
from nvfp4rt.bench import time_op
from nvfp4rt.ops import grouped_gemm_cluster as GC
from nvfp4rt.ops.gemm_wgmma_cluster import GemmClusterPlan
from test_grouped_gemm import _device_groups
ORIG = GC._KERNEL_FILE
L = os.path.abspath(".scratch/loops")
BUILDS = {"committed (8 loops, 32 KB)": ("committed", False), "full4 (N<=128 loops, 32 KB)": ("full4", False),
          "full1 (N=128 loop, 32 KB)": ("full1", False), "half1 (N=128 loop, 16 KB)": ("half1", True),
          "halfsel4 (N<=128, 16 KB, selp kept)": ("halfsel4", True), "half16 (N<=128, 16 KB)": ("half16", True),
          "two (N=128,256 loops, 32 KB)": ("two", False)}
print(nvfp4rt.device().properties.name, flush=True)
k = 8192
shapes = [(128, 7168, k)]
d = data.grouped_gemm_data(shapes, seed=None)
groups = [tuple(g) for g in _device_groups(d)]
refs = reference.grouped_gemm_ref(d.groups)
views = [tuple(x.transpose(1, 2, 0) for x in g) for g in groups]
gp = GemmClusterPlan(128, 7168, k, cluster=2, ksplit=1, units_per_cluster=k // 256)
fns = {"gemm cluster": lambda: gp(*views[0])}
for label, (b, half) in BUILDS.items():
    GC._KERNEL_FILE = ORIG if b == "committed" else os.path.join(L, b + ".ptx")
    GC._A16_BUF_BYTES = 16384 if half else 32768
    GC._kernel.cache_clear()
    p = GC.GroupedGemmClusterPlan(shapes, clusters=28, stages=3, a_bufs=4)
    fns[label] = lambda p=p: p(groups)
ok = {}
for nm, f in fns.items():
    groups[0][4].fill(np.nan)
    f()
    ok[nm] = reference.check(groups[0][4].numpy().transpose(1, 2, 0), refs[0]).ok
t = {nm: [] for nm in fns}
for _ in range(4):
    for nm, f in fns.items():
        t[nm].append(time_op(f, iters=60).median_us)
for nm in fns:
    print(f"{nm:40s} {min(t[nm]):7.2f}  (rounds {' '.join(f'{x:.1f}' for x in t[nm])}){'' if ok[nm] else ' FAIL'}", flush=True)
