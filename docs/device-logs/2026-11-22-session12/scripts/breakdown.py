"""Session 12: where the fixed cost of a whole GEMM / dual call goes (H100, event-timed, L2 cleared):
whole call, decode alone, GEMM kernel alone (A16 ready), empty kernels, decode grids."""
import numpy as np
import nvfp4rt
from nvfp4rt import data, module
from nvfp4rt.array import asarray
from nvfp4rt.bench import time_op
from nvfp4rt.ops.gemm_wgmma_cluster import GemmClusterPlan
from nvfp4rt.ops.decode_a16 import DecodeA16Plan
from nvfp4rt.ops import dual_gemm as DG
from nvfp4rt.launch import _stream_handle

def best(f, clear=True):
    return min(time_op(f, iters=60, clear_l2=clear).median_us for _ in range(3))

dev = nvfp4rt.device()
print(dev.properties.name, flush=True)
EMPTY = """.version 8.0
.target sm_90a
.address_size 64
.visible .entry empty() { ret; }
"""
ek = module.load(EMPTY, target=None).kernel("empty")
e1 = ek.prepare(grid=1, block=32)
print(f"empty 1 CTA:                         {best(e1.launch):6.2f}  (no clear {best(e1.launch, False):6.2f})", flush=True)
ek.set_max_dynamic_shared(200 * 1024)
e2 = ek.prepare(grid=112, block=384, cluster=(2, 1, 1), shared_mem=200 * 1024)
print(f"empty 112 CTAs cl2 384t 200KB:       {best(e2.launch):6.2f}  (no clear {best(e2.launch, False):6.2f})", flush=True)
e3 = ek.prepare(grid=1024, block=256)
print(f"empty 1024 CTAs 256t:                {best(e3.launch):6.2f}", flush=True)

def gemm_case(m, n, k):
    d = data.gemm_data(m, n, k, 1, seed=None)
    devs = {nm: asarray(d.physical(nm).view(np.uint8) if nm.startswith("sf") else d.physical(nm))
            for nm in ("a", "b", "sfa", "sfb", "c")}
    v = {nm: x.transpose(1, 2, 0) for nm, x in devs.items()}
    p = GemmClusterPlan(m, n, k)
    args = (v["a"], v["b"], v["sfa"], v["sfb"], v["c"])
    p.run(*args)
    whole = best(lambda: p.run(*args))
    dec = best(p._decode._launch.launch)
    kern = best(p._launch.launch)
    kern_nc = best(p._launch.launch, False)
    whole_nc = best(lambda: p.run(*args), False)
    print(f"gemm {m}x{n}x{k} {p!r} decode grid {p._decode.grid}", flush=True)
    print(f"   whole {whole:6.2f} (no clear {whole_nc:6.2f}) | decode {dec:6.2f} | kernel {kern:6.2f} (no clear {kern_nc:6.2f})", flush=True)
    orig = p._decode
    lay = p.layout
    for grid in (132, 264, 528):
        p._decode = DecodeA16Plan(m, k, 1, lay.a_row, lay.a_batch, lay.sfa_row, lay.sfa_batch, grid=grid)
        p.run(*args)
        w = best(lambda: p.run(*args))
        dd = best(p._decode._launch.launch)
        print(f"   decode grid {grid:4d}: whole {w:6.2f} decode {dd:6.2f}", flush=True)
    p._decode = orig

for shp in ((128, 7168, 16384), (128, 4096, 7168), (128, 7168, 2048)):
    gemm_case(*shp)

for (m, n, k) in ((256, 4096, 7168), (512, 4096, 7168), (256, 3072, 4096), (512, 3072, 7168)):
    d = data.dual_gemm_data(m, n, k, 1, seed=None)
    names = ("a", "b1", "b2", "sfa", "sfb1", "sfb2", "c")
    devs = {nm: asarray(d.physical(nm).view(np.uint8) if nm.startswith("sf") else d.physical(nm)) for nm in names}
    args = tuple(devs[nm].transpose(1, 2, 0) for nm in names)
    p = DG.plan_dual_gemm_silu(m, n, k)
    p(*args)
    whole = best(lambda: p(*args))
    line = f"dual {m}x{n}x{k} {type(p).__name__} whole {whole:6.2f}"
    if hasattr(p, "_decode"):
        line += f" | decode {best(p._decode._launch.launch):6.2f} | kernel {best(p._launch.launch):6.2f}"
    else:
        line += f" | kernel {best(p._launch.launch):6.2f}"
    print(line, flush=True)
