"""Session 13: how much of the A16 decode prepass could overlap the GEMM if the GEMM did not wait for the whole
decode grid (griddepcontrol.wait removed: timing only; A16 from the previous call is still in place so the output
happens to be right).  Decode grids small enough to sit beside a GEMM CTA (registers) vs the default."""
import numpy as np
import nvfp4rt
from nvfp4rt import data
from nvfp4rt.array import asarray
from nvfp4rt.bench import time_op
from nvfp4rt.module import load
from nvfp4rt.ops import gemm_wgmma_cluster as GCm, dual_gemm_cluster as DCm
from nvfp4rt.ops.gemm_wgmma_cluster import GemmClusterPlan
from nvfp4rt.ops.decode_a16 import DecodeA16Plan
from nvfp4rt.ops import dual_gemm as DG


def best(f):
    return min(time_op(f, iters=60).median_us for _ in range(3))


def nowait(t):
    assert t.count("    griddepcontrol.wait;") == 1
    return t.replace("    griddepcontrol.wait;", "    // (no wait)", 1)


import os, sys
from nvfp4rt import driver
print(nvfp4rt.device().properties.name, flush=True)
CARVE = int(os.environ.get("CARVE", "-1"))
def carve(kern):
    if CARVE >= 0:
        driver.call("cuFuncSetAttribute", kern.function, driver.raw.CUfunction_attribute.CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT, CARVE)
print("decode carveout", CARVE, flush=True)
for (m, n, k) in ((128, 7168, 16384), (128, 4096, 7168), (128, 7168, 2048)):
    d = data.gemm_data(m, n, k, 1, seed=None)
    devs = {nm: asarray(d.physical(nm).view(np.uint8) if nm.startswith("sf") else d.physical(nm))
            for nm in ("a", "b", "sfa", "sfb", "c")}
    args = tuple(devs[nm].transpose(1, 2, 0) for nm in ("a", "b", "sfa", "sfb", "c"))
    p = GemmClusterPlan(m, n, k)
    p.run(*args)
    print(f"{m}x{n}x{k} {p!r} gemm attrs {p.kernel.attributes()} decode attrs {p._decode.kernel.attributes() if hasattr(p._decode, 'kernel') else ''}", flush=True)
    kern_alone = best(p._launch.launch)
    orig_dec, orig_kern = p._decode, p.kernel
    base = open("ptx/gemm_nvfp4_wgmma_cluster.ptx").read()
    lay = p.layout
    for tag, txt in (("wait", base), ("nowait", nowait(base))):
        kern = load(txt, constants=p.constants, target="sm_90a").kernel(GCm._ENTRY)
        kern.set_max_dynamic_shared(p.shared_mem)
        p.kernel, p._launch = kern, None
        for grid in (None, 528, 264, 132):
            if grid is None:
                p._decode = orig_dec
            else:
                p._decode = DecodeA16Plan(m, k, 1, lay.a_row, lay.a_batch, lay.sfa_row, lay.sfa_batch, grid=grid)
            carve(p._decode.kernel)
            carve(p._decode.kernel)
            p.run(*args)
            w = best(lambda: p.run(*args))
            print(f"   {tag:6s} decode grid {p._decode.grid:5d}: whole {w:6.2f}   (kernel alone {kern_alone:6.2f})", flush=True)
    p._decode, p.kernel, p._launch = orig_dec, orig_kern, None

for (m, n, k) in ((256, 4096, 7168), (512, 3072, 7168)):
    try:
        names = ("a", "b1", "b2", "sfa", "sfb1", "sfb2", "c")
        d = data.dual_gemm_data(m, n, k, 1, seed=None)
        devs = {nm: asarray(d.physical(nm).view(np.uint8) if nm.startswith("sf") else d.physical(nm)) for nm in names}
        args = tuple(devs[nm].transpose(1, 2, 0) for nm in names)
        p = DG.plan_dual_gemm_silu(m, n, k)
        p(*args)
        kern_alone = best(p._launch.launch)
        base = open("ptx/dual_gemm_nvfp4_wgmma_cluster.ptx").read()
        orig_dec = p._decode
        lay = p.layout
        for tag, txt in (("wait", base), ("nowait", nowait(base))):
            kern = load(txt, constants=p.constants, target="sm_90a").kernel(DCm._ENTRY)
            kern.set_max_dynamic_shared(p.shared_mem)
            p.kernel, p._launch = kern, None
            for grid in (None, 264, 132):
                p._decode = orig_dec if grid is None else DecodeA16Plan(m, k, 1, lay.a_row, lay.a_batch, lay.sfa_row, lay.sfa_batch, grid=grid)
                carve(p._decode.kernel)
                p(*args)
                w = best(lambda: p(*args))
                print(f"dual {m}x{n}x{k} {tag:6s} decode grid {p._decode.grid:5d}: whole {w:6.2f}   (kernel alone {kern_alone:6.2f})", flush=True)
    except Exception as e:
        print("dual failed:", repr(e), flush=True)
