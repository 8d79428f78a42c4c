"""Session 27: what sets the whole call's mode.  Blocks of 40 timed calls (the bench's per-call sequence: L2 clear, spin,
start event, call, end event), read after each block: (a) whole calls with one set of events reused for every block,
(b) fresh events per block as time_op makes them, (c) blocks of whole calls alternated with blocks of the GEMM alone.
Per block: median and p10/p90 of the 40 samples (us)."""
import sys, time
import numpy as np
sys.path.insert(0, "tools"); sys.path.insert(0, ".scratch/s27")
from hang_watchdog import Watchdog
import nvfp4rt
from nvfp4rt import driver
from nvfp4rt.bench import DriverTimer
from nvfp4rt.ops.gemm_wgmma_cluster import GemmClusterPlan
import exp1h as H

wd = Watchdog(120)
H.wd = wd
print(nvfp4rt.device().properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)
timer = DriverTimer()
N = 40


def block(fn, starts, ends):
    wd.arm("block")
    for i in range(N):
        timer.clear_l2()
        timer.record(starts[i])
        fn()
        timer.record(ends[i])
    timer.synchronize()
    wd.disarm()
    s = np.array([1000.0 * timer.elapsed_ms(a, b) for a, b in zip(starts, ends)])
    return f"{np.median(s):.2f} ({np.percentile(s, 10):.2f}-{np.percentile(s, 90):.2f})"


keep = []
for (m, n, k) in [(128, 7168, 2048), (128, 7168, 16384)]:
    d, args, c = H.gemm_args(m, n, k, 1, "competition")
    p = GemmClusterPlan(m, n, k, 1)
    wd.arm("p"); p(*args); driver.call("cuCtxSynchronize"); wd.disarm()
    keep.append((p, args, d, c))
    whole = lambda: p(*args)
    alone = lambda: p._launch.launch()
    print(f"{m}x{n}x{k} {p!r}", flush=True)
    S = [timer.event() for _ in range(N)]; E = [timer.event() for _ in range(N)]
    print("  (a) whole, events reused:      " + " | ".join(block(whole, S, E) for _ in range(6)), flush=True)
    out = []
    for _ in range(6):
        s2 = [timer.event() for _ in range(N)]; e2 = [timer.event() for _ in range(N)]
        out.append(block(whole, s2, e2))
        timer.release(s2 + e2)
    print("  (b) whole, fresh events:       " + " | ".join(out), flush=True)
    out = []
    for _ in range(4):
        out.append("W " + block(whole, S, E))
        out.append("a " + block(alone, S, E))
    print("  (c) alternated, events reused: " + " | ".join(out), flush=True)
    out = []
    for _ in range(4):
        out.append("W " + block(whole, S, E))
        out.append("W " + block(whole, S, E))
        out.append("a " + block(alone, S, E))
    print("  (d) W W a ...:                 " + " | ".join(out), flush=True)
    timer.release(S + E)
print("FAILS", H.FAILS)
