"""Where the pairs' time goes: whole calls vs the GEMM kernel alone (no decode, no PDL overlap), for the K split and
the stream-K pairs with several knobs; L2 cleared, best of three medians, us."""
import numpy as np
import nvfp4rt
from nvfp4rt import data, reference
from nvfp4rt.bench import time_op
from nvfp4rt.ops import gemm_wgmma_cluster as CL

print(nvfp4rt.device().properties.name, flush=True)
for m, n, k in [(128, 7168, 16384), (64, 7168, 4096), (128, 7168, 2048), (128, 4096, 7168)]:
    kb = k // 256
    d = data.gemm_data(m, n, k, 1, seed=None)
    ref = reference.gemm_ref(d.a, d.b, d.sfa, d.sfb)
    dev = {x: nvfp4rt.from_numpy(np.ascontiguousarray(d.physical(x)).view(np.uint8)) for x in ("a", "b", "sfa", "sfb")}
    plans = {"ksplit2": dict(ksplit=2), "kss": dict(ks_stream=True), f"kss_upc{kb}": dict(ks_stream=True, units_per_cluster=kb),
             "kss_nohc": dict(ks_stream=True, head_check=False), "kss_hw0": dict(ks_stream=True, head_wait=0),
             "kss_s4a6": dict(ks_stream=True, stages=4, a_bufs=6)}
    plans = {v: CL.GemmClusterPlan(m, n, k, 1, **kw) for v, kw in plans.items()}
    c = nvfp4rt.from_numpy(np.zeros((1, m, n), np.float16))
    ok = {}
    for v, p in plans.items():
        cc = nvfp4rt.from_numpy(np.full((1, m, n), np.nan, np.float16))
        p.run(dev["a"], dev["b"], dev["sfa"], dev["sfb"], cc)
        ok[v] = reference.check(cc.numpy().transpose(1, 2, 0), ref).ok
        p.run(dev["a"], dev["b"], dev["sfa"], dev["sfb"], c)
    whole = {v: [] for v in plans}
    alone = {v: [] for v in plans}
    for _ in range(3):
        for v, p in plans.items():
            whole[v].append(time_op(lambda: p.run(dev["a"], dev["b"], dev["sfa"], dev["sfb"], c), iters=60).median_us)
            alone[v].append(time_op(lambda: p._launch.launch(), iters=60).median_us)
    print(f"{m}x{n}x{k}:", flush=True)
    for v, p in plans.items():
        g = p.geometry
        print(f"   {v:12s} grid {g.grid:4d} upc {g.units_per_cluster:3d}  whole {min(whole[v]):7.2f}  gemm alone "
              f"{min(alone[v]):7.2f}{'' if ok[v] else '  FAIL'}", flush=True)
