"""A/B: 192-row B tiles (consumer_wgs=3) with the K split against the defaults, whole calls, L2 cleared, best of
three medians, us; every output checked.  Also the occupancy of the 512-thread K-split kernel per cluster size."""
import numpy as np
import nvfp4rt
from nvfp4rt import data, reference
from nvfp4rt.bench import time_op
from nvfp4rt.ops import gemm_wgmma_cluster as CL

dev = nvfp4rt.device()
print(dev.properties.name, flush=True)
for ks in (2, 4, 8):
    cons = CL.kernel_constants(1, 4, 1, 3, ksplit=ks)
    kern = CL._kernel(dev.ordinal, tuple(sorted(cons.items())))
    smem = CL.shared_bytes(4, 4, 3)
    kern.set_max_dynamic_shared(smem)
    print(f"consumer_wgs=3 ksplit {ks}: max active clusters {CL._max_active_clusters(kern, ks, 512, smem, 10**6)}")
for m, n, k in [(128, 4096, 7168), (128, 4096, 4096), (128, 2048, 7168), (128, 7168, 2048)]:
    d = data.gemm_data(m, n, k, 1, seed=None)
    ref = reference.gemm_ref(d.a, d.b, d.sfa, d.sfb)
    dv = {x: nvfp4rt.from_numpy(np.ascontiguousarray(d.physical(x)).view(np.uint8)) for x in ("a", "b", "sfa", "sfb")}
    kb = -(-k // 256)
    plans = {"default": CL.GemmClusterPlan(m, n, k, 1)}
    for ks in (2, 4):
        if kb % ks == 0:
            plans[f"w3_ks{ks}"] = CL.GemmClusterPlan(m, n, k, 1, ksplit=ks, consumer_wgs=3)
    ok = {}
    for v, p in plans.items():
        cc = nvfp4rt.from_numpy(np.full((1, m, n), np.nan, np.float16))
        p.run(dv["a"], dv["b"], dv["sfa"], dv["sfb"], cc)
        ok[v] = reference.check(cc.numpy().transpose(1, 2, 0), ref).ok
    c = nvfp4rt.from_numpy(np.zeros((1, m, n), np.float16))
    t = {v: [] for v in plans}
    for _ in range(3):
        for v, p in plans.items():
            t[v].append(time_op(lambda: p.run(dv["a"], dv["b"], dv["sfa"], dv["sfb"], c), iters=60).median_us)
    print(f"gemm {m}x{n}x{k} (default: {plans['default']!r}): "
          + " | ".join(f"{v} {min(x):7.2f}{'' if ok[v] else ' FAIL'}" for v, x in t.items()), flush=True)
