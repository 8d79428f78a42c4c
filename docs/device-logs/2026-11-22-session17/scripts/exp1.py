"""Session 17, device run 1: is a dual GEMM on 128-row tiles worth building?
The GEMM on (m, 2n, k) does the dual's tensor work and B decode as 128-row tiles would.  Whole calls, L2 cleared.
Also: dual plans forced (first kernel / cluster stream-K / ksplit) for reference."""
import sys, time
import numpy as np
import nvfp4rt
from nvfp4rt import data, reference, driver
from nvfp4rt.bench import time_op
from nvfp4rt.array import asarray
from nvfp4rt.ops.gemm_wgmma_cluster import GemmClusterPlan
from nvfp4rt.ops.dual_gemm import dual_gemm_silu_raw

dev = nvfp4rt.device()
print(dev.properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)
def best(f, n=3, iters=60):
    return min(time_op(f, iters=iters).median_us for _ in range(n))

DS = [(256, 4096, 7168), (512, 4096, 7168), (256, 3072, 4096), (512, 3072, 7168)]
runs = {}
for (m, n, k) in DS:
    d = data.dual_gemm_data(m, n, k, 1, seed=None)
    ref = reference.dual_gemm_silu_ref(d.a, d.b1, d.b2, d.sfa, d.sfb1, d.sfb2)
    dv = {nm: asarray(d.physical(nm).view(np.uint8) if nm.startswith("sf") else d.physical(nm))
          for nm in ("a", "b1", "b2", "sfa", "sfb1", "sfb2", "c")}
    args = tuple(dv[nm].transpose(1, 2, 0) for nm in ("a", "b1", "b2", "sfa", "sfb1", "sfb2", "c"))
    dual_gemm_silu_raw(*args); driver.call("cuCtxSynchronize")
    res = reference.check(dv["c"].numpy().transpose(1, 2, 0), ref)
    print(f"dual {m}x{n}x{k}: {'OK' if res.ok else res}", flush=True)
    runs[(m, n, k, "dual")] = lambda args=args: dual_gemm_silu_raw(*args)
    N = 2 * n
    g = data.gemm_data(m, N, k, 1, seed=None)
    gref = reference.gemm_ref(g.a, g.b, g.sfa, g.sfb)
    gv = {nm: asarray(g.physical(nm).view(np.uint8) if nm.startswith("sf") else g.physical(nm))
          for nm in ("a", "b", "sfa", "sfb", "c")}
    gargs = tuple(gv[nm].transpose(1, 2, 0) for nm in ("a", "b", "sfa", "sfb", "c"))
    stages = -(-k // 256)
    for tag in ("auto", "whole"):
        try:
            p = GemmClusterPlan(m, N, k) if tag == "auto" else GemmClusterPlan(m, N, k, cluster=1, units_per_cluster=stages)
        except Exception as e:
            print(f"gemm {m}x{N}x{k} {tag}: refused {e}", flush=True); continue
        p.run(*gargs); driver.call("cuCtxSynchronize")
        res = reference.check(gv["c"].numpy().transpose(1, 2, 0), gref)
        print(f"gemm {m}x{N}x{k} {tag}: {'OK' if res.ok else res}  {p!r}", flush=True)
        runs[(m, n, k, "gemm2n-" + tag)] = lambda p=p, gargs=gargs: p.run(*gargs)
for rnd in range(2):
    for (m, n, k) in DS:
        row = [f"{tag} {best(f):6.2f}" for (mm, nn, kk, tag), f in runs.items() if (mm, nn, kk) == (m, n, k)]
        print(f"round {rnd} {m}x{n}x{k}: " + "  ".join(row), flush=True)
