"""Session 21, last device run: at the final commit, a dual tiles plan with k = 16384 (64-stage tiles: the capped even
share, not a quarter-tile run) is correct in both distributions."""
import sys
sys.path.insert(0, "tools"); sys.path.insert(0, ".scratch/s21")
from hang_watchdog import Watchdog
from nvfp4rt.ops.dual_gemm_tiles import DualGemmTilesPlan
import exp1h as H

H.wd = Watchdog(300)
p = DualGemmTilesPlan(512, 1024, 16384, 1)
print(repr(p), flush=True)
assert p.geometry.units_per_cluster <= 32, p
H.check_dual(p, 512, 1024, 16384, 1, "dual 512x1024x16384 capped runs")
print("FAILS:", H.FAILS, flush=True)
sys.exit(1 if H.FAILS else 0)
