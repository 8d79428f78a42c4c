"""A/B: the dual GEMM's stream-K schedule (cluster=2) against the K split (ksplit=2), and the first dual kernel,
whole calls (decode + kernel), L2 cleared, best of three medians, us.  Every output is checked."""
import numpy as np
import nvfp4rt
from nvfp4rt import data, reference
from nvfp4rt.bench import time_op
from nvfp4rt.ops import dual_gemm as D, dual_gemm_cluster as DC

print(nvfp4rt.device().properties.name, flush=True)
ROUNDS = 3
for m, n, k in [(256, 4096, 7168), (512, 4096, 7168), (256, 3072, 4096), (512, 3072, 7168), (256, 2048, 7168),
                (128, 4096, 7168)]:
    d = data.dual_gemm_data(m, n, k, 1, seed=None)
    ref = reference.dual_gemm_silu_ref(d.a, d.b1, d.b2, d.sfa, d.sfb1, d.sfb2)
    names = ("a", "b1", "b2", "sfa", "sfb1", "sfb2")
    dev = {x: nvfp4rt.from_numpy(np.ascontiguousarray(d.physical(x)).view(np.uint8)) for x in names}
    args = [dev[x] for x in names]
    plans = {"streamk": DC.DualGemmClusterPlan(m, n, k, 1, cluster=2), "first": D.DualGemmPlan(m, n, k, 1)}
    if (-(-k // 256)) % 2 == 0:
        plans["ks2"] = DC.DualGemmClusterPlan(m, n, k, 1, ksplit=2)
    auto = DC.DualGemmClusterPlan(m, n, k, 1)
    ok = {}
    for v, p in plans.items():
        cc = nvfp4rt.from_numpy(np.full((1, m, n), np.nan, np.float16))
        p.run(*args, cc)
        ok[v] = reference.check(cc.numpy().transpose(1, 2, 0), ref).ok
    c = nvfp4rt.from_numpy(np.zeros((1, m, n), np.float16))
    t = {v: [] for v in plans}
    for _ in range(ROUNDS):
        for v, p in plans.items():
            t[v].append(time_op(lambda: p.run(*args, c), iters=60).median_us)
    print(f"dual {m}x{n}x{k} (auto ksplit {auto.geometry.ksplit}, op variant {D.variant_for(m, n, k, 1)}): "
          + " | ".join(f"{v} {min(x):7.2f}{'' if ok[v] else ' FAIL'}" for v, x in t.items()), flush=True)
