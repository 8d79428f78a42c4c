"""A/B: the K split's ring depths once its C staging tile is gone (C_PITCH = 0 frees 50 KB): (stages, a_bufs)
per K-split shape, whole calls (decode + kernel), L2 cleared, best of three medians, us; every output checked."""
import numpy as np
import nvfp4rt
from nvfp4rt import data, reference
from nvfp4rt.bench import time_op
from nvfp4rt.ops import gemm_wgmma_cluster as CL

print(nvfp4rt.device().properties.name, flush=True)
ROUNDS = 3
SHAPES = [(128, 7168, 16384, 2), (128, 7168, 2048, 2), (128, 2048, 7168, 4), (256, 4096, 7168, 2),
          (64, 7168, 4096, 2), (128, 7168, 1536, 2)]
CONFIGS = [(4, 6), (4, 9), (3, 10), (3, 8), (2, 10)]
for m, n, k, ks in SHAPES:
    d = data.gemm_data(m, n, k, 1, seed=None)
    ref = reference.gemm_ref(d.a, d.b, d.sfa, d.sfb)
    dev = {x: nvfp4rt.from_numpy(np.ascontiguousarray(d.physical(x)).view(np.uint8)) for x in ("a", "b", "sfa", "sfb")}
    c = nvfp4rt.from_numpy(np.zeros((1, m, n), np.float16))
    plans = {"streamk": CL.GemmClusterPlan(m, n, k, 1, cluster=2)}
    for s, ab in CONFIGS:
        plans[f"s{s}a{ab}"] = CL.GemmClusterPlan(m, n, k, 1, ksplit=ks, stages=s, a_bufs=ab)
    ok = {}
    for v, p in list(plans.items()):
        cc = nvfp4rt.from_numpy(np.full((1, m, n), np.nan, np.float16))
        try:
            p.run(dev["a"], dev["b"], dev["sfa"], dev["sfb"], cc)
        except Exception as e:  # noqa: BLE001 - report which plan fails, go on with the others
            print(f"  {m}x{n}x{k} {v} (smem {p.shared_mem}): {type(e).__name__}: {e}", flush=True)
            del plans[v]
            continue
        ok[v] = reference.check(cc.numpy().transpose(1, 2, 0), ref).ok
    t = {v: [] for v in plans}
    for _ in range(ROUNDS):
        for v, p in plans.items():
            t[v].append(time_op(lambda: p.run(dev["a"], dev["b"], dev["sfa"], dev["sfb"], c), iters=60).median_us)
    print(f"gemm {m}x{n}x{k} ksplit {ks}: " + " | ".join(f"{v} {min(x):6.2f}{'' if ok[v] else ' FAIL'}"
                                                       for v, x in t.items()), flush=True)
