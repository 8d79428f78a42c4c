"""compute-sanitizer target: the tail helpers on small shapes, both paths (helpers first / last)."""
import numpy as np
import nvfp4rt
from nvfp4rt import data, reference
from nvfp4rt.ops.gemm_wgmma_cluster import GemmClusterPlan

for m, n, k, l, kw in [(128, 1024, 4096, 1, dict(help_tail=4, helpers=2)), (128, 1024, 4096, 1, dict(help_tail=1, helpers=8)),
                       (77, 333, 1792, 2, dict(help_tail=2, helpers=4))]:
    d = data.gemm_data(m, n, k, l, seed=None)
    dev = {x: nvfp4rt.from_numpy(np.ascontiguousarray(d.physical(x)).view(np.uint8)) for x in ("a", "b", "sfa", "sfb")}
    c = nvfp4rt.from_numpy(np.full((l, m, n), np.nan, np.float16))
    p = GemmClusterPlan(m, n, k, l, **kw)
    for _ in range(2):
        p.run(dev["a"], dev["b"], dev["sfa"], dev["sfb"], c)
    res = reference.check(c.numpy().transpose(1, 2, 0), reference.gemm_ref(d.a, d.b, d.sfa, d.sfb))
    print(m, n, k, l, kw, "ok" if res.ok else "FAIL", flush=True)
    assert res.ok
