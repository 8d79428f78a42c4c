"""Session 17, device run 2: the DUAL = 1 build of the cluster GEMM (DualGemmTilesPlan).
Correctness on the competition shapes and awkward ones (both distributions, NaN-poisoned c, every schedule),
then whole calls against the op layer's current choice, L2 cleared, two interleaved rounds."""
import sys, time
import numpy as np
import nvfp4rt
from nvfp4rt import data, reference, driver
from nvfp4rt.bench import time_op
from nvfp4rt.array import asarray
from nvfp4rt.ops.dual_gemm import dual_gemm_silu_raw, plan_dual_gemm_silu
from nvfp4rt.ops.dual_gemm_tiles import DualGemmTilesPlan

dev = nvfp4rt.device()
print(dev.properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)
def best(f, n=3, iters=60):
    return min(time_op(f, iters=iters).median_us for _ in range(n))

def operands(m, n, k, l, dist):
    d = data.dual_gemm_data(m, n, k, l, seed=None, distribution=dist)
    ref = reference.dual_gemm_silu_ref(d.a, d.b1, d.b2, d.sfa, d.sfb1, d.sfb2)
    dv = {nm: asarray(d.physical(nm).view(np.uint8) if nm.startswith("sf") else d.physical(nm))
          for nm in ("a", "b1", "b2", "sfa", "sfb1", "sfb2", "c")}
    args = tuple(dv[nm].transpose(1, 2, 0) for nm in ("a", "b1", "b2", "sfa", "sfb1", "sfb2", "c"))
    return dv, args, ref

fails = 0
def check(tag, plan, dv, args, ref):
    global fails
    dv["c"].fill(np.nan); driver.call("cuCtxSynchronize")
    plan(*args); driver.call("cuCtxSynchronize")
    res = reference.check(dv["c"].numpy().transpose(1, 2, 0), ref)
    fails += not res.ok
    print(f"{tag}: {'OK' if res.ok else res}  {plan!r}", flush=True)

SCHED = {"auto": {}, "whole": "whole", "sk2": {"cluster": 2}, "sk1": {"cluster": 1}, "sk4": {"cluster": 4}}
SHAPES = [(256, 4096, 7168, 1), (256, 3072, 4096, 1), (512, 3072, 7168, 1), (512, 4096, 7168, 1),
          (200, 100, 512, 1), (130, 1000, 1024, 2), (1, 64, 64, 1), (64, 65, 320, 3), (384, 513, 2048, 1),
          (128, 4096, 7168, 1), (257, 3000, 8192, 1)]
for (m, n, k, l) in SHAPES:
    for dist in ("competition", "wide"):
        dv, args, ref = operands(m, n, k, l, dist)
        for tag, kw in SCHED.items():
            if kw == "whole":
                kw = {"cluster": 1, "units_per_cluster": -(-k // 256)}
            try:
                p = DualGemmTilesPlan(m, n, k, l, **kw)
            except ValueError as e:
                print(f"{m}x{n}x{k}x{l} {tag}: refused: {e}", flush=True); continue
            check(f"{m}x{n}x{k}x{l} {dist} {tag}", p, dv, args, ref)
            if tag == "auto":  # repeat bits
                c1 = dv["c"].numpy().copy(); p(*args); driver.call("cuCtxSynchronize")
                same = np.array_equal(c1.view(np.uint16), dv["c"].numpy().view(np.uint16))
                fails += not same
                print(f"   repeat identical: {same}", flush=True)
print("FAILS", fails, flush=True)

runs = {}
for (m, n, k, l) in SHAPES[:4]:
    dv, args, ref = operands(m, n, k, l, "competition")
    cur = plan_dual_gemm_silu(m, n, k, l)
    runs[(m, n, k, "current " + type(cur).__name__)] = lambda args=args: dual_gemm_silu_raw(*args)
    for tag, kw in (("tiles-auto", {}), ("tiles-whole", {"cluster": 1, "units_per_cluster": -(-k // 256)}),
                    ("tiles-sk2", {"cluster": 2})):
        try:
            p = DualGemmTilesPlan(m, n, k, l, **kw)
        except ValueError as e:
            continue
        runs[(m, n, k, tag)] = lambda p=p, args=args: p(*args)
for rnd in range(2):
    for (m, n, k, l) in SHAPES[:4]:
        row = [f"{tag} {best(f):6.2f}" for (mm, nn, kk, tag), f in runs.items() if (mm, nn, kk) == (m, n, k)]
        print(f"round {rnd} {m}x{n}x{k}: " + "  ".join(row), flush=True)
