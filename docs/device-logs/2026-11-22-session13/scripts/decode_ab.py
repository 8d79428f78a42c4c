"""Session 13: the decode prepass's new defaults (4 CTAs per SM, shared carveout 100) against the old ones (8 per SM,
the driver's carveout) in front of the K-split push GEMM and the dual kernel: whole calls, L2 cleared, best of 3."""
import numpy as np
import nvfp4rt
from nvfp4rt import data, driver
from nvfp4rt.array import asarray
from nvfp4rt.bench import time_op
from nvfp4rt.ops.gemm_wgmma_cluster import GemmClusterPlan
from nvfp4rt.ops import decode_a16 as D, dual_gemm as DG

ATTR = driver.raw.CUfunction_attribute.CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT


def best(f):
    return min(time_op(f, iters=60).median_us for _ in range(3))


def settings(p, old):
    dec = p._decode
    dec.kernel.set_shared_carveout(-1 if old else 100)
    dec.grid = min(-(-dec.items // D.ITEMS_PER_CTA), (8 if old else 4) * nvfp4rt.device().properties.sm_count)
    dec._launch = None


print(nvfp4rt.device().properties.name, flush=True)
for (m, n, k) in ((128, 7168, 16384), (128, 4096, 7168), (128, 7168, 2048)):
    d = data.gemm_data(m, n, k, 1, seed=None)
    devs = {nm: asarray(d.physical(nm).view(np.uint8) if nm.startswith("sf") else d.physical(nm))
            for nm in ("a", "b", "sfa", "sfb", "c")}
    args = tuple(devs[nm].transpose(1, 2, 0) for nm in ("a", "b", "sfa", "sfb", "c"))
    p = GemmClusterPlan(m, n, k)
    p.run(*args)
    out = []
    for rnd in range(2):
        for old in (True, False):
            settings(p, old)
            p.run(*args)
            out.append(f"{'old' if old else 'new'}({p._decode.grid}) {best(lambda: p.run(*args)):6.2f}")
    print(f"gemm {m}x{n}x{k} whole: " + "  ".join(out), flush=True)
for (m, n, k) in ((256, 4096, 7168), (512, 4096, 7168), (256, 3072, 4096), (512, 3072, 7168)):
    names = ("a", "b1", "b2", "sfa", "sfb1", "sfb2", "c")
    d = data.dual_gemm_data(m, n, k, 1, seed=None)
    devs = {nm: asarray(d.physical(nm).view(np.uint8) if nm.startswith("sf") else d.physical(nm)) for nm in names}
    args = tuple(devs[nm].transpose(1, 2, 0) for nm in names)
    p = DG.plan_dual_gemm_silu(m, n, k)
    p(*args)
    if not hasattr(p, "_decode"):
        print(f"dual {m}x{n}x{k}: no decode prepass ({type(p).__name__})", flush=True)
        continue
    out = []
    for rnd in range(2):
        for old in (True, False):
            settings(p, old)
            p(*args)
            out.append(f"{'old' if old else 'new'}({p._decode.grid}) {best(lambda: p(*args)):6.2f}")
    print(f"dual {m}x{n}x{k} whole: " + "  ".join(out), flush=True)
