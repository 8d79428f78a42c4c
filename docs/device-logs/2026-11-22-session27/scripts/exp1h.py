"""Session 19: the data helpers of exp1.py (fresh NaN-poisoned GEMM and dual operands as device views) without its run."""
import numpy as np
from nvfp4rt import data, reference, driver
from nvfp4rt.array import asarray
FAILS = []
def gemm_args(m, n, k, l, dist):
    d = data.gemm_data(m, n, k, l, seed=None, distribution=dist)
    dv = {nm: asarray(d.physical(nm).view(np.uint8) if nm.startswith("sf") else d.physical(nm))
          for nm in ("a", "b", "sfa", "sfb")}
    c = asarray(np.full((l, m, n), np.nan, np.float16))
    args = tuple(dv[nm].transpose(1, 2, 0) for nm in ("a", "b", "sfa", "sfb")) + (c.transpose(1, 2, 0),)
    return d, args, c


def check_gemm(p, m, n, k, l, tag, dists=("competition", "wide")):
    for dist in dists:
        d, args, c = gemm_args(m, n, k, l, dist)
        wd.arm(tag); p(*args); driver.call("cuCtxSynchronize"); wd.disarm()
        res = reference.check(c.numpy().transpose(1, 2, 0), reference.gemm_ref(d.a, d.b, d.sfa, d.sfb))
        print(f"  {tag} {dist}: {'OK' if res.ok else 'FAIL ' + str(res)}", flush=True)
        if not res.ok:
            FAILS.append(tag)


def dual_args(m, n, k, l, dist):
    d = data.dual_gemm_data(m, n, k, l, seed=None, distribution=dist)
    dv = {nm: asarray(d.physical(nm).view(np.uint8) if nm.startswith("sf") else d.physical(nm))
          for nm in ("a", "b1", "b2", "sfa", "sfb1", "sfb2")}
    c = asarray(np.full((l, m, n), np.nan, np.float16))
    args = tuple(dv[nm].transpose(1, 2, 0) for nm in ("a", "b1", "b2", "sfa", "sfb1", "sfb2")) + (c.transpose(1, 2, 0),)
    return d, args, c


def check_dual(p, m, n, k, l, tag):
    for dist in ("competition", "wide"):
        d, args, c = dual_args(m, n, k, l, dist)
        wd.arm(tag); p(*args); driver.call("cuCtxSynchronize"); wd.disarm()
        res = reference.check(c.numpy().transpose(1, 2, 0),
                              reference.dual_gemm_silu_ref(d.a, d.b1, d.b2, d.sfa, d.sfb1, d.sfb2))
        print(f"  {tag} {dist}: {'OK' if res.ok else 'FAIL ' + str(res)}", flush=True)
        if not res.ok:
            FAILS.append(tag)


