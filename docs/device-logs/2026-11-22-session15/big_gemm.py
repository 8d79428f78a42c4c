"""Session 15: the default GEMM plan on large-m shapes (one stream-K wave of long runs now)."""
import time
import numpy as np
import nvfp4rt
from nvfp4rt import data, reference
from nvfp4rt.array import asarray
from nvfp4rt.bench import time_op
from nvfp4rt.ops.gemm_wgmma_cluster import GemmClusterPlan

print(nvfp4rt.device().properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)
def best(f):
    return min(time_op(f, iters=60).median_us for _ in range(3))
for m, n, k in [(1408, 4096, 7168), (1664, 7168, 2048), (1024, 8192, 8192)]:
    d = data.gemm_data(m, n, k, 1, seed=None)
    devs = {nm: asarray(d.physical(nm).view(np.uint8) if nm.startswith("sf") else d.physical(nm))
            for nm in ("a", "b", "sfa", "sfb", "c")}
    args = tuple(devs[nm].transpose(1, 2, 0) for nm in ("a", "b", "sfa", "sfb", "c"))
    for kw in ({}, {"units_per_cluster": 32}):
        p = GemmClusterPlan(m, n, k, **kw)
        devs["c"].fill(np.nan)
        p.run(*args)
        ok = reference.check(devs["c"].numpy().transpose(1, 2, 0), reference.gemm_ref(d.a, d.b, d.sfa, d.sfb)).ok
        print(f"{m}x{n}x{k} {kw}: {p!r} ok={ok} whole {best(lambda: p.run(*args)):7.2f}", flush=True)
