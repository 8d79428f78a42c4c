"""Session 43: the dual GEMM's 128-row tiles (DualGemmTilesPlan) against the 256-row cluster kernel
(DualGemmClusterPlan, its own K-split choice) with the cluster kernel built as a whole program (the runtime's
"auto" compiler), whole calls (decode + kernel), L2 cleared, launch phases spread, best of two medians of 40, us.
The two outputs are checked against each other (the same fp32 products in another order) and the tiles' against
the float64 reference on the shapes under 2^34 multiply-adds."""
import numpy as np
import nvfp4rt
from nvfp4rt import data, reference
from nvfp4rt.bench import time_op
from nvfp4rt.ops import dual_gemm as D, dual_gemm_cluster as DC, dual_gemm_tiles as DT

print(nvfp4rt.device().properties.name, flush=True)
ROUNDS = 2
SHAPES = [(256, 4096, 7168), (512, 4096, 7168), (256, 3072, 4096), (512, 3072, 7168), (384, 4096, 7168),
          (768, 3072, 4096), (384, 3072, 2048), (1024, 2048, 4096), (768, 4096, 7168), (1024, 4096, 7168),
          (512, 2048, 4096), (1024, 3072, 2048)]
for m, n, k in SHAPES:
    d = data.dual_gemm_data(m, n, k, 1, seed=None)
    names = ("a", "b1", "b2", "sfa", "sfb1", "sfb2")
    dev = {x: nvfp4rt.from_numpy(np.ascontiguousarray(d.physical(x)).view(np.uint8)) for x in names}
    args = [dev[x] for x in names]
    plans = {"tiles": DT.DualGemmTilesPlan(m, n, k, 1), "cluster": DC.DualGemmClusterPlan(m, n, k, 1)}
    outs = {}
    for v, p in plans.items():
        cc = nvfp4rt.from_numpy(np.full((1, m, n), np.nan, np.float16))
        p.run(*args, cc)
        outs[v] = cc.numpy().transpose(1, 2, 0)
    agree = reference.check(outs["cluster"], outs["tiles"].astype(np.float64)).ok
    ref_ok = "-"
    if m * n * k < 2**34:
        ref_ok = reference.check(outs["tiles"], reference.dual_gemm_silu_ref(d.a, d.b1, d.b2, d.sfa, d.sfb1,
                                                                            d.sfb2)).ok
    c = nvfp4rt.from_numpy(np.zeros((1, m, n), np.float16))
    t = {v: [] for v in plans}
    for _ in range(ROUNDS):
        for v, p in plans.items():
            t[v].append(time_op(lambda: p.run(*args, c), iters=40).median_us)
    best = {v: min(x) for v, x in t.items()}
    print(f"dual {m}x{n}x{k}: tiles {best['tiles']:7.2f} | cluster {best['cluster']:7.2f} (ksplit "
          f"{plans['cluster'].geometry.ksplit}, {plans['cluster'].kernel.module.compiler}) | op today "
          f"{D.variant_for(m, n, k, 1)} | cluster_tiles_win {D.cluster_tiles_win(m, n, k, 1)} | agree {agree} "
          f"ref {ref_ok}", flush=True)
