"""Session 22 final timing: whole call of the committed FUSED_A plan against the default plan (decode + GEMM), and the
default plan's GEMM alone; three interleaved rounds, best of 3 medians of 40 (us), L2 cleared."""
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
for (m, n, k) in [(128, 7168, 16384), (128, 4096, 7168), (128, 7168, 2048)]:
    d, args, c = H.gemm_args(m, n, k, 1, "competition")
    plain, fused = GemmClusterPlan(m, n, k, 1), GemmClusterPlan(m, n, k, 1, fused_a=True)
    for p in (plain, fused):
        wd.arm("x"); p(*args); driver.call("cuCtxSynchronize"); wd.disarm()
    print(f"  {m}x{n}x{k}: {fused!r}", flush=True)
    for rnd in range(3):
        print(f"    round {rnd}: default {best(lambda: plain(*args)):.2f};  fused_a {best(lambda: fused(*args)):.2f};  "
              f"default GEMM alone {best(lambda: plain._launch.launch()):.2f}", flush=True)
