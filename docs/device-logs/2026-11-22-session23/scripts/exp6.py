"""Session 23, device run 11: does the GEMM's time depend on the operands' values?  The default plan on
128x7168x16384 and 128x7168x2048, kernel alone (A16 decoded by a whole call on the same inputs first) and whole call,
two interleaved rounds, best of 3 medians of 40 (us).  Inputs: the competition and wide distributions; all-zero
bytes and scales; every fp4 1.0 with scale 1.0 (A16 = 2^-14: normal fp16, B fragments 2^-14: normal); fp4 1.0
with scale 2^8 (normal fp16 well inside the range)."""
import sys, time
import numpy as np
sys.path.insert(0, "tools"); sys.path.insert(0, ".scratch/s23")
from hang_watchdog import Watchdog
import nvfp4rt
from nvfp4rt import data, driver
from nvfp4rt.array import asarray
from nvfp4rt.bench import time_op
from nvfp4rt.ops.gemm_wgmma_cluster import GemmClusterPlan

wd = Watchdog(90)
print(nvfp4rt.device().properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)


def best(f, n=3, iters=40):
    wd.arm("timing")
    r = min(time_op(f, iters=iters).median_us for _ in range(n))
    wd.disarm()
    return r


def make(m, n, k, kind):
    d = data.gemm_data(m, n, k, 1, seed=1, distribution="wide" if kind == "wide" else "competition")
    ph = {nm: (d.physical(nm).view(np.uint8) if nm.startswith("sf") else d.physical(nm)).copy() for nm in ("a", "b", "sfa", "sfb")}
    if kind in ("zeros", "one", "big"):
        for nm in ("a", "b"):
            ph[nm].view(np.uint8)[...] = 0 if kind == "zeros" else 0x22
        for nm in ("sfa", "sfb"):
            ph[nm][...] = {"zeros": 0, "one": 0x38, "big": 0x78}[kind]
    dv = {nm: asarray(ph[nm]) for nm in ph}
    c = asarray(np.full((1, m, n), np.nan, np.float16))
    return tuple(dv[nm].transpose(1, 2, 0) for nm in ("a", "b", "sfa", "sfb")) + (c.transpose(1, 2, 0),), dv, c


keep = []
for (m, n, k) in [(128, 7168, 16384), (128, 7168, 2048)]:
    p = GemmClusterPlan(m, n, k, 1)
    sets = {kind: make(m, n, k, kind) for kind in ("competition", "wide", "zeros", "one", "big")}
    keep.append(sets)
    res = {kind: [] for kind in sets}
    for rnd in range(2):
        for kind, (args, dv, c) in sets.items():
            wd.arm(kind); p(*args); driver.call("cuCtxSynchronize"); wd.disarm()
            alone = best(lambda: p._launch.launch())
            whole = best(lambda: p(*args))
            res[kind].append((alone, whole))
    print(f"{m}x{n}x{k} {p!r}", flush=True)
    for kind in sets:
        print(f"  {kind:12s} kernel alone / whole call: " + "  ".join(f"{a:.2f} / {b:.2f}" for a, b in res[kind]), flush=True)
print("done", time.strftime("%H:%M:%S"), flush=True)
