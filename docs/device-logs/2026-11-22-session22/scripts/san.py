"""FUSED_A under compute-sanitizer: small shapes, both forms of the wait."""
import sys
sys.path.insert(0, "tools"); sys.path.insert(0, ".scratch/s22")
from hang_watchdog import Watchdog
from nvfp4rt.ops.gemm_wgmma_cluster import GemmClusterPlan
import exp1h as H
H.wd = Watchdog(600)
for (m, n, k, l), kw in [((200, 1000, 576, 2), {}), ((77, 513, 320, 1), dict(ksplit=2)),
                         ((130, 640, 2112, 1), dict(a_wait=0)), ((64, 512, 1024, 1), dict(ksplit=2, a_wait=0))]:
    p = GemmClusterPlan(m, n, k, l, fused_a=True, **kw)
    H.check_gemm(p, m, n, k, l, f"{m}x{n}x{k}x{l} {kw}")
print("FAILS:", H.FAILS)
sys.exit(1 if H.FAILS else 0)
