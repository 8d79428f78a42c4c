"""compute-sanitizer target: the K-split GEMM with its default rings (3 B stages, 10 a16 buffers; no staging tile) and
explicit ones, ksplit 2, 4, 8, both consumer warpgroup counts, small shapes, one launch each, checked."""
import numpy as np
import nvfp4rt
from nvfp4rt import data, reference
from nvfp4rt.ops import gemm_wgmma_cluster as CL

bad = 0
for (m, n, k, l), ks, wgs, rings in [((127, 129, 1024, 1), 2, 2, {}), ((128, 256, 1024, 1), 4, 2, {}),
                                     ((64, 300, 2048, 2), 8, 2, {}), ((200, 200, 512, 1), 2, 3, {}),
                                     ((1, 1, 512, 1), 2, 2, {}), ((128, 256, 2048, 1), 8, 3, {}), ((100, 500, 1024, 1), 4, 3, {}), ((130, 260, 2048, 1), 2, 2, dict(stages=2, a_bufs=10)),
                                     ((128, 128, 4096, 1), 2, 2, dict(stages=4, a_bufs=9))]:
    d = data.gemm_data(m, n, k, l, seed=None, distribution="wide")
    dev = {x: nvfp4rt.from_numpy(np.ascontiguousarray(d.physical(x)).view(np.uint8)) for x in ("a", "b", "sfa", "sfb")}
    c = nvfp4rt.from_numpy(np.full((l, m, n), np.nan, np.float16))
    p = CL.GemmClusterPlan(m, n, k, l, cluster=1, ksplit=ks, consumer_wgs=wgs, **rings)
    p.run(dev["a"], dev["b"], dev["sfa"], dev["sfb"], c)
    r = reference.check(c.numpy().transpose(1, 2, 0), reference.gemm_ref(d.a, d.b, d.sfa, d.sfb))
    print((m, n, k, l), ks, wgs, (p.geometry.num_stages, p.geometry.a_bufs), "PASS" if r.ok else "FAIL", flush=True)
    bad += not r.ok
raise SystemExit(1 if bad else 0)
