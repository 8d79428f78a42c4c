"""Where does FUSED_A win?  Whole call, default plan against fused_a=True, small to medium GEMMs; best of 3 medians of
40 (us), L2 cleared, two interleaved rounds."""
import sys, time
sys.path.insert(0, "tools"); sys.path.insert(0, ".scratch/s22")
from hang_watchdog import Watchdog
import nvfp4rt
from nvfp4rt import driver
from nvfp4rt.bench import time_op
from nvfp4rt.ops.gemm_wgmma_cluster import GemmClusterPlan
import exp1h as H
wd = Watchdog(90); H.wd = wd
print(nvfp4rt.device().properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)
def best(f, n=3, iters=40):
    wd.arm("t"); r = min(time_op(f, iters=iters).median_us for _ in range(n)); wd.disarm(); return r
for (m, n, k, l) in [(1, 300, 64, 1), (16, 512, 256, 1), (128, 256, 512, 1), (64, 1024, 1024, 1), (128, 2048, 1024, 1),
                     (32, 4096, 2048, 1), (256, 1024, 2048, 2), (128, 4096, 1024, 1), (512, 2048, 512, 1)]:
    d, args, c = H.gemm_args(m, n, k, l, "competition")
    plain, fused = GemmClusterPlan(m, n, k, l), GemmClusterPlan(m, n, k, l, fused_a=True)
    for p in (plain, fused):
        wd.arm("x"); p(*args); driver.call("cuCtxSynchronize"); wd.disarm()
    H.check_gemm(fused, m, n, k, l, f"fused {m}x{n}x{k}x{l}")
    row = []
    for rnd in range(2):
        row.append(f"{best(lambda: plain(*args)):.2f} / {best(lambda: fused(*args)):.2f}")
    print(f"  {m}x{n}x{k}x{l} {plain!r}: default / fused  " + ";  ".join(row), flush=True)
print("FAILS", H.FAILS)
