"""Session 26 sanitizer cases: small plans of every kernel whose producers changed (tile lookups only when a unit starts
a tile), including runs that cross tiles, each checked against the float64 reference."""
import sys
sys.path.insert(0, "tests"); sys.path.insert(0, "tools"); sys.path.insert(0, ".scratch/s26")
from hang_watchdog import Watchdog
import exp1h as H
H.wd = Watchdog(1200)
from nvfp4rt.ops.gemm_wgmma_cluster import GemmClusterPlan
from nvfp4rt.ops.gemm_wgmma import GemmWgmmaPlan
from nvfp4rt.ops.dual_gemm_tiles import DualGemmTilesPlan
from nvfp4rt.ops.dual_gemm_cluster import DualGemmClusterPlan
from nvfp4rt.ops.dual_gemm import DualGemmPlan
from nvfp4rt.ops.grouped_gemm_mtiles import GroupedGemmMTilePlan
from nvfp4rt.ops.grouped_gemm_cluster import GroupedGemmClusterPlan
from nvfp4rt.ops.grouped_gemm import GroupedGemmPlan
from test_grouped_gemm import _run as run_grouped

which = sys.argv[1] if len(sys.argv) > 1 else "all"
if which in ("all", "gemm"):
    for kw in (dict(), dict(cluster=1, units_per_cluster=3), dict(ksplit=2), dict(ksplit=2, ks_stream=True)):
        m, n, k = (200, 1000, 576) if "ksplit" not in kw else (128, 1024, 2048)
        p = GemmClusterPlan(m, n, k, 2 if "ksplit" not in kw else 1, **kw)
        print(p, flush=True)
        H.check_gemm(p, m, n, k, p.l, f"cluster gemm {kw}", dists=("wide",))
    p = GemmWgmmaPlan(200, 640, 576, 2, units_per_cta=3) if False else GemmWgmmaPlan(200, 640, 576, 2)
    print(p, flush=True)
    H.check_gemm(p, 200, 640, 576, 2, "first gemm", dists=("wide",))
if which in ("all", "dual"):
    for cls, (m, n, k) in ((DualGemmTilesPlan, (256, 512, 1024)), (DualGemmClusterPlan, (300, 512, 1024)),
                           (DualGemmPlan, (100, 256, 768))):
        p = cls(m, n, k, 1)
        print(p, flush=True)
        H.check_dual(p, m, n, k, 1, cls.__name__)
if which in ("all", "grouped"):
    for cls, shapes, kw in ((GroupedGemmMTilePlan, [(72, 384, 512), (200, 384, 512)], {}),
                            (GroupedGemmMTilePlan, [(72, 384, 1024), (200, 384, 1024)], dict(cluster=1, units_per_cluster=3)),
                            (GroupedGemmClusterPlan, [(72, 512, 1024), (300, 512, 1024)], {}),
                            (GroupedGemmPlan, [(40, 256, 512), (130, 384, 768)], {})):
        res, p, _ = run_grouped(shapes, "wide", cls, **kw)
        ok = all(r.ok for r in res)
        print(f"  {p!r}: {'OK' if ok else 'FAIL'}", flush=True)
        if not ok:
            H.FAILS.append(repr(p))
print("FAILS", H.FAILS, flush=True)
sys.exit(1 if H.FAILS else 0)
