"""Session 30, device run 2: per-unit and fixed cost (two k values, kernel alone, L2 cleared, best of 3 medians of 40)
of the GEMM template's builds: the K split, whole tiles in clusters of 2 and 1 (56 or 132 CTAs busy), the stream-K
one-wave schedule on 1408 rows; and the grouped cluster kernel on one group of 128 / 256 rows (whole tiles)."""
import sys, time
import numpy as np
sys.path.insert(0, "tools"); sys.path.insert(0, ".scratch/s30")
from hang_watchdog import Watchdog
import nvfp4rt
from nvfp4rt import driver
from nvfp4rt.ops.gemm_wgmma_cluster import GemmClusterPlan
from nvfp4rt.ops import grouped_gemm as GG, grouped_gemm_cluster as GC
import exp1h as H
import s28h

wd = Watchdog(150)
H.wd = s28h.wd = wd
print(nvfp4rt.device().properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)


def kern(p, args):
    wd.arm("first"); p(*args); driver.call("cuCtxSynchronize"); wd.disarm()
    return s28h.best(lambda: p._launch.launch())


CASES = [
    ("ksplit 128x7168", 128, 7168, (16384, 8192), {}),
    ("whole c2 128x7168", 128, 7168, (8192, 4096), {"cluster": 2, "units_per_cluster": "kb"}),
    ("whole c1 128x7168", 128, 7168, (8192, 4096), {"cluster": 1, "units_per_cluster": "kb"}),
    ("whole c2 1408x1536", 1408, 1536, (8192, 4096), {"cluster": 2, "units_per_cluster": "kb"}),
    ("whole c1 1408x1536", 1408, 1536, (8192, 4096), {"cluster": 1, "units_per_cluster": "kb"}),
    ("default 1408x4096", 1408, 4096, (7168, 3584), {}),
]
for name, m, n, ks, kw in CASES:
    t = []
    for k in ks:
        kw2 = dict(kw)
        if kw2.get("units_per_cluster") == "kb":
            kw2["units_per_cluster"] = k // 256
        p = GemmClusterPlan(m, n, k, 1, **kw2)
        d, args, c = H.gemm_args(m, n, k, 1, "competition")
        t.append((k, kern(p, args), p))
    (k1, t1, p1), (k2, t2, p2) = t
    du = (k1 - k2) // 256
    if "upc" in repr(p1) or True:
        pass
    slope = (t1 - t2) / (p1.geometry.units_per_cluster - p2.geometry.units_per_cluster) if hasattr(p1, "geometry") else float("nan")
    print(f"{name:22s} k={k1}: {t1:7.2f}  k={k2}: {t2:7.2f}  per unit {slope*1000:7.1f} ns  fixed {t1 - slope * p1.geometry.units_per_cluster:6.2f}"
          f"   {p1!r}", flush=True)

bench_rows = [(128, (8192, 4096)), (256, (8192, 4096))]
for m, ks in bench_rows:
    t = []
    for k in ks:
        d, args, c = H.gemm_args(m, 7168, k, 1, "competition")
        p = GC.GroupedGemmClusterPlan([(m, 7168, k)], [GG._raw_groups([args])[0][3]], clusters=28)
        grp = [args]
        t.append((k, p, grp))
    res = []
    for k, p, grp in t:
        wd.arm("g"); p(grp); driver.call("cuCtxSynchronize"); wd.disarm()
        res.append(s28h.best(lambda p=p: p._launch.launch()))
    du = (ks[0] - ks[1]) // 256
    slope = (res[0] - res[1]) / du
    print(f"grouped cluster m={m:3d}       k={ks[0]}: {res[0]:7.2f}  k={ks[1]}: {res[1]:7.2f}  per unit {slope*1000:7.1f} ns  "
          f"fixed {res[0] - slope * ks[0] // 256:6.2f}  {t[0][1]!r}", flush=True)
print("done", time.strftime("%H:%M:%S"), flush=True)
