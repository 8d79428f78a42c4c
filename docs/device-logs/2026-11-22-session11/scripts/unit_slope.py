"""Per-unit cost without any stream-K exchange, H100: every CTA runs one whole tile of 16 or 32 k256 units
(m = 128, n = 7168: 56 CTA tiles), in the GEMM cluster kernel, the grouped cluster kernel and the first grouped
kernel.  The slope between k = 4096 and k = 8192 is the time of 16 units; the intercept the fixed cost."""
import sys
import numpy as np
sys.path.insert(0, "tests")
import nvfp4rt
from nvfp4rt import data, reference
from nvfp4rt.bench import time_op
from nvfp4rt.ops import grouped_gemm as GG, grouped_gemm_cluster as GC
from nvfp4rt.ops.gemm_wgmma_cluster import GemmClusterPlan
from test_grouped_gemm import _device_groups
print(nvfp4rt.device().properties.name, flush=True)
res = {}
for k in (4096, 8192):
    shapes = [(128, 7168, k)]
    ks = k // 256
    d = data.grouped_gemm_data(shapes, seed=None)
    groups = [tuple(g) for g in _device_groups(d)]
    refs = reference.grouped_gemm_ref(d.groups)
    views = [tuple(x.transpose(1, 2, 0) for x in g) for g in groups]
    gp = GemmClusterPlan(128, 7168, k, cluster=2, ksplit=1, units_per_cluster=ks)
    cp = GC.GroupedGemmClusterPlan(shapes, clusters=28)
    fp = GG.GroupedGemmPlan(shapes, units_per_cta=ks)
    fns = {"gemm cluster (whole tiles)": lambda: gp.run(*views[0]) if hasattr(gp, "run") else gp(*views[0]),
           "grouped cluster (whole tiles)": lambda: cp(groups), "first grouped (whole tiles)": lambda: fp(groups)}
    print(k, repr(gp), repr(cp), flush=True)
    for nm, f in fns.items():
        groups[0][4].fill(np.nan)
        f()
        ok = reference.check(groups[0][4].numpy().transpose(1, 2, 0), refs[0]).ok
        ts = min(time_op(f, iters=60).median_us for _ in range(3))
        res[(nm, k)] = ts
        print(f"k={k}: {nm:32s} {ts:7.2f} {'ok' if ok else 'FAIL'}", flush=True)
for nm in ("gemm cluster (whole tiles)", "grouped cluster (whole tiles)", "first grouped (whole tiles)"):
    a, b = res[(nm, 4096)], res[(nm, 8192)]
    print(f"{nm:32s} per unit {(b - a) / 16:5.3f} us, fixed {a - 16 * (b - a) / 16:6.2f} us", flush=True)
