"""Session 17, device run 5: ring shapes for whole tiles (B stages x a16 buffers) on the dual's 128-row tiles and the
GEMM, whole calls and kernel alone (the GEMM launch replayed with A16 already decoded), L2 cleared, two rounds."""
import time
import numpy as np
import nvfp4rt
from nvfp4rt import data, reference, driver
from nvfp4rt.bench import time_op
from nvfp4rt.array import asarray
from nvfp4rt.ops.dual_gemm_tiles import DualGemmTilesPlan
from nvfp4rt.ops.gemm_wgmma_cluster import GemmClusterPlan

dev = nvfp4rt.device()
print(dev.properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)
def best(f, n=3, iters=60):
    return min(time_op(f, iters=iters).median_us for _ in range(n))

RINGS = [(4, 6), (2, 8), (3, 7)]
runs = {}
for (m, n, k) in [(256, 4096, 7168), (256, 3072, 4096)]:
    d = data.dual_gemm_data(m, n, k, 1, seed=None)
    ref = reference.dual_gemm_silu_ref(d.a, d.b1, d.b2, d.sfa, d.sfb1, d.sfb2)
    dv = {nm: asarray(d.physical(nm).view(np.uint8) if nm.startswith("sf") else d.physical(nm))
          for nm in ("a", "b1", "b2", "sfa", "sfb1", "sfb2", "c")}
    args = tuple(dv[nm].transpose(1, 2, 0) for nm in ("a", "b1", "b2", "sfa", "sfb1", "sfb2", "c"))
    for (s, ab) in RINGS:
        p = DualGemmTilesPlan(m, n, k, 1, cluster=1, units_per_cluster=-(-k // 256), stages=s, a_bufs=ab)
        dv["c"].fill(np.nan); p(*args); driver.call("cuCtxSynchronize")
        res = reference.check(dv["c"].numpy().transpose(1, 2, 0), ref)
        print(f"dual {m}x{n}x{k} rings {s},{ab}: {'OK' if res.ok else res} {p!r}", flush=True)
        runs[(f"dual {m}x{n}x{k}", f"{s},{ab}")] = lambda p=p, args=args: p(*args)
        runs[(f"dual {m}x{n}x{k}", f"{s},{ab} alone")] = lambda p=p: p._launch.launch()
for (m, n, k) in [(640, 3072, 4096), (256, 7168, 2048), (896, 2048, 3072)]:
    g = data.gemm_data(m, n, k, 1, seed=None)
    gref = reference.gemm_ref(g.a, g.b, g.sfa, g.sfb)
    gv = {nm: asarray(g.physical(nm).view(np.uint8) if nm.startswith("sf") else g.physical(nm))
          for nm in ("a", "b", "sfa", "sfb", "c")}
    gargs = tuple(gv[nm].transpose(1, 2, 0) for nm in ("a", "b", "sfa", "sfb", "c"))
    for (s, ab) in RINGS:
        p = GemmClusterPlan(m, n, k, cluster=1, units_per_cluster=-(-k // 256), stages=s, a_bufs=ab)
        gv["c"].fill(np.nan); p.run(*gargs); driver.call("cuCtxSynchronize")
        res = reference.check(gv["c"].numpy().transpose(1, 2, 0), gref)
        print(f"gemm {m}x{n}x{k} rings {s},{ab}: {'OK' if res.ok else res} {p!r}", flush=True)
        runs[(f"gemm {m}x{n}x{k}", f"{s},{ab}")] = lambda p=p, gargs=gargs: p.run(*gargs)
for rnd in range(2):
    for shape in dict.fromkeys(s for s, _ in runs):
        row = [f"{tag} {best(f):6.2f}" for (sh, tag), f in runs.items() if sh == shape]
        print(f"round {rnd} {shape}: " + "  ".join(row), flush=True)
