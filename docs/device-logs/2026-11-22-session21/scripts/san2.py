"""Session 21: a dual tiles stream-K whose run grows to a quarter tile (640 x 1800 x 2048: even share 9 -> 10), for
compute-sanitizer; both distributions, checked against the reference."""
import sys
sys.path.insert(0, "tools"); sys.path.insert(0, ".scratch/s21")
from hang_watchdog import Watchdog
from nvfp4rt.ops.dual_gemm_tiles import DualGemmTilesPlan
import exp1h as H

H.wd = Watchdog(600)
p = DualGemmTilesPlan(640, 1800, 2048, 1)
print(repr(p), flush=True)
assert p.geometry.units_per_cluster == 10, p
H.check_dual(p, 640, 1800, 2048, 1, "dual 640x1800x2048 aligned run")
print("FAILS:", H.FAILS, flush=True)
sys.exit(1 if H.FAILS else 0)
