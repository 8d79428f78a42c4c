"""A/B: stream-K (cluster 2, the former default) against the pairs on the shapes where the default now takes them."""
import numpy as np
import nvfp4rt
from nvfp4rt import data, reference
from nvfp4rt.bench import time_op
from nvfp4rt.ops import gemm_wgmma_cluster as CL

print(nvfp4rt.device().properties.name, flush=True)
for m, n, k in [(128, 4096, 7168), (64, 4096, 16384), (256, 2048, 8192), (192, 3072, 16384), (512, 1024, 7168),
                (128, 4096, 16384), (256, 7168, 2048)]:
    d = data.gemm_data(m, n, k, 1, seed=None)
    ref = reference.gemm_ref(d.a, d.b, d.sfa, d.sfb)
    dev = {x: nvfp4rt.from_numpy(np.ascontiguousarray(d.physical(x)).view(np.uint8)) for x in ("a", "b", "sfa", "sfb")}
    plans = {"auto": CL.GemmClusterPlan(m, n, k, 1), "streamk": CL.GemmClusterPlan(m, n, k, 1, cluster=2, ksplit=1),
             "pairs": CL.GemmClusterPlan(m, n, k, 1, ks_stream=True)}
    ok = {}
    for v, p in plans.items():
        cc = nvfp4rt.from_numpy(np.full((1, m, n), np.nan, np.float16))
        p.run(dev["a"], dev["b"], dev["sfa"], dev["sfb"], cc)
        ok[v] = reference.check(cc.numpy().transpose(1, 2, 0), ref).ok
    c = nvfp4rt.from_numpy(np.zeros((1, m, n), np.float16))
    t = {v: [] for v in plans}
    for _ in range(3):
        for v, p in plans.items():
            t[v].append(time_op(lambda: p.run(dev["a"], dev["b"], dev["sfa"], dev["sfb"], c), iters=60).median_us)
    print(f"gemm {m}x{n}x{k} auto={plans['auto']!r}: " + " | ".join(
        f"{v} {min(x):6.2f}{'' if ok[v] else ' FAIL'}" for v, x in t.items()), flush=True)
