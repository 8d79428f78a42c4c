"""The grouped cluster kernel on one group shaped like a GEMM, against nvfp4rt.gemm on the same problem:
does the grouped machinery (and its wgmma serialisation, ptxas C7511/C7512) cost per unit? H100, us."""
import sys, os
import numpy as np
sys.path.insert(0, "tests")
import nvfp4rt
from nvfp4rt import data, reference
from nvfp4rt.bench import time_op
from nvfp4rt.ops import grouped_gemm as GG, grouped_gemm_cluster as GC
from nvfp4rt.ops.gemm import gemm_raw
from test_grouped_gemm import _device_groups
LOOPS = os.path.abspath(".scratch/loops")
ORIG = GC._KERNEL_FILE
def cplan(shapes, name, **kw):
    GC._KERNEL_FILE = ORIG if name == "committed" else os.path.join(LOOPS, name + ".ptx")
    GC._kernel.cache_clear()
    return GC.GroupedGemmClusterPlan(shapes, **kw)
print(nvfp4rt.device().properties.name, flush=True)
for shapes, names in [([(128, 7168, 16384)], ["committed", "two"]), ([(256, 4096, 7168)], ["committed", "one"]),
                      ([(128, 4096, 7168)], ["committed", "two"])]:
    d = data.grouped_gemm_data(shapes, seed=None)
    groups = [tuple(g) for g in _device_groups(d)]
    refs = reference.grouped_gemm_ref(d.groups)
    views = [tuple(x.transpose(1, 2, 0) for x in g) for g in groups]
    fns = {}
    for nm in names:
        p = cplan(shapes, nm)
        fns[f"cluster {nm} {p!r}"] = (lambda p=p: p(groups), p)
    first = GG.GroupedGemmPlan(shapes)
    fns["first grouped"] = (lambda: first(groups), first)
    fns["gemm"] = (lambda: gemm_raw(*views[0]), None)
    ok = {}
    for nm, (f, p) in fns.items():
        groups[0][4].fill(np.nan); nvfp4rt.device().synchronize() if hasattr(nvfp4rt.device(), "synchronize") else None
        f()
        ok[nm] = reference.check(groups[0][4].numpy().transpose(1, 2, 0), refs[0]).ok
    t = {nm: [] for nm in fns}
    for _ in range(3):
        for nm, (f, p) in fns.items():
            t[nm].append(time_op(f, iters=60).median_us)
    for nm in fns:
        print(f"{shapes[0]}: {nm:70s} {min(t[nm]):7.2f}{'' if ok[nm] else ' FAIL'}", flush=True)
