"""compute-sanitizer target: the dual K split (ksplit=2), small shapes, both a16 depths, one launch each, checked."""
import numpy as np
import nvfp4rt
from nvfp4rt import data, reference
from nvfp4rt.ops import dual_gemm_cluster as DC

bad = 0
for (m, n, k, l), ab in [((300, 130, 512, 1), 4), ((129, 1, 512, 2), 3), ((256, 200, 1024, 1), 4)]:
    d = data.dual_gemm_data(m, n, k, l, seed=None, distribution="wide")
    names = ("a", "b1", "b2", "sfa", "sfb1", "sfb2")
    dev = {x: nvfp4rt.from_numpy(np.ascontiguousarray(d.physical(x)).view(np.uint8)) for x in names}
    c = nvfp4rt.from_numpy(np.full((l, m, n), np.nan, np.float16))
    p = DC.DualGemmClusterPlan(m, n, k, l, ksplit=2, a_bufs=ab)
    p.run(*[dev[x] for x in names], c)
    r = reference.check(c.numpy().transpose(1, 2, 0), reference.dual_gemm_silu_ref(d.a, d.b1, d.b2, d.sfa, d.sfb1, d.sfb2))
    print((m, n, k, l), ab, "PASS" if r.ok else "FAIL", flush=True)
    bad += not r.ok
raise SystemExit(1 if bad else 0)
