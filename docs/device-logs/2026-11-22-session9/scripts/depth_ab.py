"""A/B: the K split (default rings 3 B stages, 10 a16 buffers) with one or three wgmma groups in flight per consumer
warpgroup (wgmma_depth 1 / 3), whole calls, L2 cleared, best of three medians, us; every output checked."""
import numpy as np
import nvfp4rt
from nvfp4rt import data, reference
from nvfp4rt.bench import time_op
from nvfp4rt.ops import gemm_wgmma_cluster as CL

print(nvfp4rt.device().properties.name, flush=True)
SHAPES = [(128, 7168, 16384, 2), (128, 7168, 2048, 2), (128, 2048, 7168, 4), (256, 4096, 7168, 2),
          (64, 7168, 4096, 2)]
for m, n, k, ks in SHAPES:
    d = data.gemm_data(m, n, k, 1, seed=None)
    ref = reference.gemm_ref(d.a, d.b, d.sfa, d.sfb)
    dev = {x: nvfp4rt.from_numpy(np.ascontiguousarray(d.physical(x)).view(np.uint8)) for x in ("a", "b", "sfa", "sfb")}
    c = nvfp4rt.from_numpy(np.zeros((1, m, n), np.float16))
    plans = {f"depth{dp}": CL.GemmClusterPlan(m, n, k, 1, ksplit=ks, wgmma_depth=dp) for dp in (1, 3)}
    plans["depth3_s4a9"] = CL.GemmClusterPlan(m, n, k, 1, ksplit=ks, wgmma_depth=3, stages=4, a_bufs=9)
    ok = {}
    for v, p in plans.items():
        cc = nvfp4rt.from_numpy(np.full((1, m, n), np.nan, np.float16))
        p.run(dev["a"], dev["b"], dev["sfa"], dev["sfb"], cc)
        ok[v] = reference.check(cc.numpy().transpose(1, 2, 0), ref).ok
    t = {v: [] for v in plans}
    for _ in range(3):
        for v, p in plans.items():
            t[v].append(time_op(lambda: p.run(dev["a"], dev["b"], dev["sfa"], dev["sfb"], c), iters=60).median_us)
    print(f"gemm {m}x{n}x{k} ksplit {ks}: " + " | ".join(f"{v} {min(x):6.2f}{'' if ok[v] else ' FAIL'}"
                                                       for v, x in t.items()), flush=True)
