"""Per-unit cost without stream-K exchange (whole tiles, m = 128, n = 7168, 56 CTA tiles), H100: which ring
depth or build makes the grouped cluster kernel's unit slower than the GEMM's (1.458 vs 1.771 us, log 06)?"""
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
def gplan(shapes, build, stages, a_bufs):
    half = build == "half16"
    GC._KERNEL_FILE = ORIG if build == "committed" else os.path.join(L, build + ".ptx")
    GC._A16_BUF_BYTES = 16384 if half else 32768
    GC.A_BUFS_CHOICES = (4, 6, 8) if half else (3, 4)
    GC._kernel.cache_clear()
    return GC.GroupedGemmClusterPlan(shapes, clusters=28, stages=stages, a_bufs=a_bufs)
CONFIGS = [("committed", 3, 4), ("committed", 2, 4), ("two", 3, 4), ("half16", 4, 6), ("half16", 5, 4), ("half16", 3, 8), ("half16", 3, 4)]
print(nvfp4rt.device().properties.name, flush=True)
res = {}
for k in (4096, 8192):
    shapes = [(128, 7168, k)]
    ks = k // 256
    d = data.grouped_gemm_data(shapes, seed=None)
    groups = [tuple(g) for g in _device_groups(d)]
    refs = reference.grouped_gemm_ref(d.groups)
    views = [tuple(x.transpose(1, 2, 0) for x in g) for g in groups]
    fns = {}
    for st, ab in ((4, 6), (3, 4), (2, 4)):
        gp = GemmClusterPlan(128, 7168, k, cluster=2, ksplit=1, units_per_cluster=ks, stages=st, a_bufs=ab)
        fns[f"gemm stages={st} a_bufs={ab} (16 KB)"] = (lambda gp=gp: gp(*views[0]))
    for b, st, ab in CONFIGS:
        p = gplan(shapes, b, st, ab)
        fns[f"grouped {b} stages={st} a_bufs={ab}"] = (lambda p=p: p(groups))
    for nm, f in fns.items():
        groups[0][4].fill(np.nan)
        f()
        ok = reference.check(groups[0][4].numpy().transpose(1, 2, 0), refs[0]).ok
        res[(nm, k)] = (min(time_op(f, iters=60).median_us for _ in range(3)), ok)
for nm in fns:
    (a, oka), (b, okb) = res[(nm, 4096)], res[(nm, 8192)]
    print(f"{nm:40s} k4096 {a:6.2f} k8192 {b:6.2f}  per unit {(b - a) / 16:5.3f} us, fixed {2 * a - b:6.2f} us"
          f"{'' if oka and okb else '  FAIL'}", flush=True)
