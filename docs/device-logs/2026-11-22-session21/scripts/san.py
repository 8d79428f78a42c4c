"""Session 21: small A_FP4 cases for compute-sanitizer (GEMM K split, pairs, stream-K over clusters of 1, whole
tiles; the dual's tiles), both distributions, checked against the reference."""
import sys
sys.path.insert(0, "tools"); sys.path.insert(0, ".scratch/s21")
from hang_watchdog import Watchdog
from nvfp4rt.ops.gemm_wgmma_cluster import GemmClusterPlan
from nvfp4rt.ops.dual_gemm_tiles import DualGemmTilesPlan
import exp1h as H

H.wd = Watchdog(600)
for (m, n, k, l), kw in [((130, 600, 1472, 2), dict(ksplit=2)), ((128, 512, 2048, 1), dict(ks_stream=True)),
                         ((200, 700, 576, 1), dict(cluster=1)), ((70, 256, 512, 1), dict(cluster=1, units_per_cluster=2))]:
    p = GemmClusterPlan(m, n, k, l, a_fp4=True, **kw)
    print(repr(p), flush=True)
    H.check_gemm(p, m, n, k, l, f"gemm {m}x{n}x{k}x{l} {kw}")
for (m, n, k, l), kw in [((200, 300, 576, 2), {}), ((260, 200, 1024, 1), dict(cluster=1, units_per_cluster=3))]:
    p = DualGemmTilesPlan(m, n, k, l, a_fp4=True, **kw)
    print(repr(p), flush=True)
    H.check_dual(p, m, n, k, l, f"dual {m}x{n}x{k}x{l} {kw}")
print("FAILS:", H.FAILS, flush=True)
sys.exit(1 if H.FAILS else 0)
