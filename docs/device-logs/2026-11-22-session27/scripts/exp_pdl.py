"""Session 27: the whole call's two modes against the launch: the committed whole call (GEMM launched with programmatic
dependent launch after the decode) and the same with the GEMM launched plainly (stream order), each as time_ops in a row
and alternated with GEMM-alone time_ops (medians of 40, L2 cleared, us)."""
import sys, time
sys.path.insert(0, "tools"); sys.path.insert(0, ".scratch/s27")
from hang_watchdog import Watchdog
import nvfp4rt
from nvfp4rt import driver
from nvfp4rt.bench import time_op
from nvfp4rt.ops.gemm_wgmma_cluster import GemmClusterPlan
import exp1h as H

wd = Watchdog(120)
H.wd = wd
print(nvfp4rt.device().properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)
keep = []


def t(fn):
    wd.arm("t")
    r = time_op(fn, iters=40).median_us
    wd.disarm()
    return r


for (m, n, k) in [(128, 7168, 2048), (128, 7168, 16384), (128, 4096, 7168)]:
    d, args, c = H.gemm_args(m, n, k, 1, "competition")
    pdl = GemmClusterPlan(m, n, k, 1)
    plain = GemmClusterPlan(m, n, k, 1)
    orig = plain.kernel.prepare
    plain.kernel = type(plain.kernel).__new__(type(plain.kernel))
    plain.kernel.__dict__.update(pdl.kernel.__dict__)
    plain.kernel.prepare = lambda *a, **kw: orig(*a, **{**kw, "programmatic": False})
    for nm, p in (("pdl", pdl), ("plain", plain)):
        H.check_gemm(p, m, n, k, 1, f"{m}x{n}x{k} {nm}", dists=("competition",))
        wd.arm(nm); p(*args); driver.call("cuCtxSynchronize"); wd.disarm()
    keep.append((pdl, plain, args, d, c))
    print(f"{m}x{n}x{k} {pdl!r}", flush=True)
    row = {nm: [t(lambda p=p: p(*args)) for _ in range(4)] for nm, p in (("pdl", pdl), ("plain", plain))}
    for nm in row:
        print(f"  {nm:6s} in a row:            " + "  ".join(f"{x:.2f}" for x in row[nm]), flush=True)
    for nm, p in (("pdl", pdl), ("plain", plain)):
        alt = []
        for _ in range(4):
            alt.append(t(lambda p=p: p(*args)))
            alt.append(t(lambda p=p: p._launch.launch()))
        print(f"  {nm:6s} alternated (whole, alone): " + "  ".join(f"{x:.2f}" for x in alt), flush=True)
print("FAILS", H.FAILS)
