"""Session 17: the dual GEMM's DUAL = 1 build (DualGemmTilesPlan) under compute-sanitizer: whole tiles, stream-K in
clusters of 1, 2 and 4 (split tiles: partials, head check, reduction), ragged m, n and l, the repeat path; checked."""
import sys
import numpy as np
import nvfp4rt
from nvfp4rt import data, reference
from nvfp4rt.ops.dual_gemm_tiles import DualGemmTilesPlan

names = ("a", "b1", "b2", "sfa", "sfb1", "sfb2")
bad = 0
for (m, n, k, l) in [(200, 100, 512, 1), (130, 300, 1024, 2), (64, 65, 320, 3), (257, 200, 768, 1)]:
    kb = -(-k // 256)
    for kw in (dict(cluster=1, units_per_cluster=kb), dict(cluster=1, units_per_cluster=2), dict(cluster=2),
               dict(cluster=4, units_per_cluster=3)):
        plan = DualGemmTilesPlan(m, n, k, l, alpha1=0.5, alpha2=1.5, **kw)
        d = data.dual_gemm_data(m, n, k, l, seed=None, distribution="wide")
        dev = {x: nvfp4rt.from_numpy(np.ascontiguousarray(d.physical(x)).view(np.uint8)) for x in names}
        c = nvfp4rt.from_numpy(np.full((l, m, n), np.nan, np.float16))
        for _ in range(2):  # the second call takes the repeat path
            plan.run(*(dev[x] for x in names), c)
        with np.errstate(over="ignore"):
            h1 = reference.matmul_ref(d.a, d.b1, d.sfa, d.sfb1).astype(np.float32)
            h2 = reference.matmul_ref(d.a, d.b2, d.sfa, d.sfb2).astype(np.float32)
        ref = (reference._silu(np.float32(0.5) * h1) * (np.float32(1.5) * h2)).astype(np.float16)
        res = reference.check(c.numpy().transpose(1, 2, 0), ref)
        bad += not res.ok
        print(f"{m}x{n}x{k}x{l} {plan!r}: {'OK' if res.ok else res.report()}", flush=True)
sys.exit(1 if bad else 0)
