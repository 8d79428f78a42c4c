"""Session 16: whole-tile GEMM plans and the repeat path under compute-sanitizer (small shapes, checked results)."""
import sys
import numpy as np
import nvfp4rt
from nvfp4rt import data, reference
from nvfp4rt.ops.gemm_wgmma_cluster import GemmClusterPlan

bad = 0
for (m, n, k) in [(200, 300, 512), (129, 1000, 1024), (640, 3072, 4096), (96, 640, 320)]:
    kb = -(-k // 256)
    for kw in (dict(cluster=1, units_per_cluster=kb), {}):
        plan = GemmClusterPlan(m, n, k, **kw)
        for rep in range(2):
            d = data.gemm_data(m, n, k, 1, seed=None, distribution="wide")
            dev = {x: nvfp4rt.from_numpy(np.ascontiguousarray(d.physical(x)).view(np.uint8)) for x in ("a", "b", "sfa", "sfb")}
            c = nvfp4rt.from_numpy(np.full((1, m, n), np.nan, np.float16))
            for _ in range(2):  # the second call takes the repeat path
                plan.run(dev["a"], dev["b"], dev["sfa"], dev["sfb"], c)
            res = reference.check(c.numpy().transpose(1, 2, 0), reference.gemm_ref(d.a, d.b, d.sfa, d.sfb))
            bad += not res.ok
            print(f"{m}x{n}x{k} {plan!r}: {'OK' if res.ok else res.report()}", flush=True)
sys.exit(1 if bad else 0)
