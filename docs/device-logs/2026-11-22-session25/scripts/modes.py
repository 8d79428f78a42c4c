"""Session 25 run G: what flips the whole call between its two modes?  128x7168x2048 (modes ~1.1 us apart), committed
plan.  (1) 60 time_op(iters=40) of the whole call in a row, each median printed in order, with the wall time;
(2) the same alternating whole call / GEMM alone; (3) 30 in a row with iters=41."""
import sys, time
import numpy as np
sys.path.insert(0, "tools"); sys.path.insert(0, ".scratch/s25")
from hang_watchdog import Watchdog
import nvfp4rt
from nvfp4rt import driver
from nvfp4rt.bench import time_op
from nvfp4rt.ops.gemm_wgmma_cluster import GemmClusterPlan
import exp1h as H

wd = Watchdog(300)
H.wd = wd
print(nvfp4rt.device().properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)
d, args, c = H.gemm_args(128, 7168, 2048, 1, "competition")
p = GemmClusterPlan(128, 7168, 2048, 1)
p(*args); driver.call("cuCtxSynchronize")
whole, alone = (lambda: p(*args)), (lambda: p._launch.launch())
wd.arm("seq")
t0 = time.perf_counter()
out = []
for i in range(60):
    out.append((time.perf_counter() - t0, time_op(whole, iters=40).median_us))
print("(1) whole call, 60 in a row: " + " ".join(f"{v:.2f}" for _, v in out), flush=True)
print("    at s: " + " ".join(f"{t:.2f}" for t, _ in out[::6]), flush=True)
out = []
for i in range(30):
    out.append((time_op(whole, iters=40).median_us, time_op(alone, iters=40).median_us))
print("(2) whole: " + " ".join(f"{a:.2f}" for a, _ in out), flush=True)
print("    alone: " + " ".join(f"{b:.2f}" for _, b in out), flush=True)
out = [time_op(whole, iters=41).median_us for _ in range(30)]
print("(3) whole, iters=41: " + " ".join(f"{v:.2f}" for v in out), flush=True)
wd.disarm()
print("done", time.strftime("%H:%M:%S"), flush=True)
