"""Units per cluster: the default against other choices, whole calls (decode + kernel), L2 cleared, best of 3 medians."""
import sys, numpy as np
import nvfp4rt
from nvfp4rt import data
from nvfp4rt.bench import time_op
from nvfp4rt.ops import gemm_wgmma_cluster as CL, dual_gemm_cluster as DC
print(nvfp4rt.device().properties.name, flush=True)

def sweep(label, make, run, choices):
    out = []
    for upc in [None] + choices:
        try:
            p = make(upc)
        except ValueError as e:
            out.append(f"upc={upc}: {e}"); continue
        run(p)
        t = min(time_op(lambda: run(p), iters=60).median_us for _ in range(3))
        g = p.geometry
        out.append(f"upc={g.units_per_cluster}{'(default)' if upc is None else ''} clusters={g.clusters} {t:6.2f}")
    print(f"{label}: " + " | ".join(out), flush=True)

for m, n, k, ch in [(128, 7168, 16384, [29, 30, 32]), (128, 4096, 7168, [8, 10, 14]), (128, 7168, 2048, [5, 6, 8])]:
    d = data.gemm_data(m, n, k, 1, seed=1)
    dev = {x: nvfp4rt.from_numpy(np.ascontiguousarray(d.physical(x)).view(np.uint8)) for x in ("a", "b", "sfa", "sfb")}
    c = nvfp4rt.from_numpy(np.zeros((1, m, n), np.float16))
    sweep(f"gemm {m}x{n}x{k}", lambda u: CL.GemmClusterPlan(m, n, k, 1, units_per_cluster=u),
          lambda p: p.run(dev["a"], dev["b"], dev["sfa"], dev["sfb"], c), ch)
for m, n, k, ch in [(256, 4096, 7168, [15, 16, 19, 28]), (512, 3072, 7168, [22, 24, 28]), (256, 3072, 4096, [4, 6, 8, 16])]:
    d = data.dual_gemm_data(m, n, k, 1, seed=1)
    dev = {x: nvfp4rt.from_numpy(np.ascontiguousarray(d.physical(x)).view(np.uint8)) for x in ("a", "b1", "b2", "sfa", "sfb1", "sfb2")}
    c = nvfp4rt.from_numpy(np.zeros((1, m, n), np.float16))
    args = [dev[x] for x in ("a", "b1", "b2", "sfa", "sfb1", "sfb2")]
    sweep(f"dual {m}x{n}x{k}", lambda u: DC.DualGemmClusterPlan(m, n, k, 1, units_per_cluster=u), lambda p: p.run(*args, c), ch)
