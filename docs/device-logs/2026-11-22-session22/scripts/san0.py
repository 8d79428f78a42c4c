"""synccheck probe: the same small stream-K case without FUSED_A (is the divergent-barrier report new?)."""
import sys
sys.path.insert(0, "tools"); sys.path.insert(0, ".scratch/s22")
from hang_watchdog import Watchdog
from nvfp4rt.ops.gemm_wgmma_cluster import GemmClusterPlan
import exp1h as H
H.wd = Watchdog(600)
fa = sys.argv[1] == "1"
kw = eval(sys.argv[2]) if len(sys.argv) > 2 else {}
p = GemmClusterPlan(200, 1000, 576, 2, fused_a=fa, **kw)
print(p)
H.check_gemm(p, 200, 1000, 576, 2, f"fused_a={fa} {kw}")
sys.exit(1 if H.FAILS else 0)
