"""Session 21, device run 7: where the whole call's ~3 us over the GEMM alone goes with the staged decode.  The
staged decode alone (grids of 20 and 2 CTAs, clusters of 2), and the GEMM without any wait (timing only: 'nopoll')
behind staged decodes of 20 and 2 CTAs.  Best of 3 medians of 40 (us), L2 cleared, two rounds."""
import sys, time
sys.path.insert(0, "tools"); sys.path.insert(0, ".scratch/s21")
from hang_watchdog import Watchdog
import nvfp4rt
from nvfp4rt import driver
from nvfp4rt.bench import time_op
from nvfp4rt.ops.gemm_wgmma_cluster import GemmClusterPlan
from nvfp4rt.ops.decode_a16 import DecodeA16Plan
import exp1h as H
import exp4

wd = exp4.wd
m, n, k = 128, 7168, 16384
d, args, c = H.gemm_args(m, n, k, 1, "competition")
plans = {"default": GemmClusterPlan(m, n, k, 1)}
for g in (20, 2):
    p = exp4.swap(GemmClusterPlan(m, n, k, 1, staged_decode=True), "nopoll")
    lay = p.layout
    p._decode = DecodeA16Plan(m, k, 1, lay.a_row, lay.a_batch, lay.sfa_row, lay.sfa_batch, staged_ksplit=2, grid=g)
    plans[f"nopoll decode{g}"] = p
for nm, p in plans.items():
    wd.arm(nm); p(*args); driver.call("cuCtxSynchronize"); wd.disarm()
for rnd in range(2):
    row = []
    for nm, p in plans.items():
        row.append(f"{nm} {exp4.best(lambda: p(*args)):.2f} / {exp4.best(lambda: p._launch.launch()):.2f}")
        if "decode" in nm:
            row.append(f"its decode alone {exp4.best(lambda: p._decode._launch.launch()):.2f}")
    print(f"  round {rnd}: " + ";  ".join(row), flush=True)
print("done", flush=True)
