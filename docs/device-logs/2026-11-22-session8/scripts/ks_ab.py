"""A/B: the GEMM's stream-K schedule (cluster=2, multicast, the head check) against the K split (clusters of
ksplit CTAs reducing through DSMEM), whole calls (decode + kernel), L2 cleared, best of three medians, us.
Same inputs for every plan; every output is checked against the reference."""
import sys, numpy as np
import nvfp4rt
from nvfp4rt import data, reference
from nvfp4rt.bench import time_op
from nvfp4rt.ops import gemm_wgmma_cluster as CL

print(nvfp4rt.device().properties.name, flush=True)
ROUNDS = 3
SHAPES = [(128, 7168, 16384), (128, 4096, 7168), (128, 7168, 2048), (128, 7168, 1536), (256, 4096, 7168),
          (128, 2048, 7168), (64, 7168, 4096), (256, 7168, 2048), (128, 4096, 4096)]
for m, n, k in SHAPES:
    d = data.gemm_data(m, n, k, 1, seed=None)
    ref = reference.gemm_ref(d.a, d.b, d.sfa, d.sfb)
    dev = {x: nvfp4rt.from_numpy(np.ascontiguousarray(d.physical(x)).view(np.uint8)) for x in ("a", "b", "sfa", "sfb")}
    c = nvfp4rt.from_numpy(np.zeros((1, m, n), np.float16))
    kb = -(-k // 256)
    plans = {"streamk": CL.GemmClusterPlan(m, n, k, 1, cluster=2)}
    for ks in (2, 4, 8):
        if kb % ks == 0 and kb // ks <= 32:
            plans[f"ks{ks}"] = CL.GemmClusterPlan(m, n, k, 1, ksplit=ks)
    auto = CL.GemmClusterPlan(m, n, k, 1)
    ok = {}
    for v, p in plans.items():
        c.numpy()[...] = np.nan
        nvfp4rt.from_numpy  # noqa
        cc = nvfp4rt.from_numpy(np.full((1, m, n), np.nan, np.float16))
        p.run(dev["a"], dev["b"], dev["sfa"], dev["sfb"], cc)
        ok[v] = reference.check(cc.numpy().transpose(1, 2, 0), ref).ok
    t = {v: [] for v in plans}
    for _ in range(ROUNDS):
        for v, p in plans.items():
            t[v].append(time_op(lambda: p.run(dev["a"], dev["b"], dev["sfa"], dev["sfb"], c), iters=60).median_us)
    g = plans["streamk"].geometry
    print(f"gemm {m}x{n}x{k} (stream-K upc {g.units_per_cluster}, auto ksplit {auto.geometry.ksplit}): "
          + " | ".join(f"{v} {min(x):7.2f}{'' if ok[v] else ' FAIL'}" for v, x in t.items()), flush=True)
