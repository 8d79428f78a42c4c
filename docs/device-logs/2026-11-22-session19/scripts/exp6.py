"""Session 19, device run 10: what the a16 ring depth alone costs (the committed loop), before a loop specialised to
A_BUFS = 4 or 8 (ring position fixed per sub-step).  Kernel alone / whole call, L2 cleared, interleaved, best of 3."""
import sys, time
sys.path.insert(0, "tools"); sys.path.insert(0, "docs/device-logs/2026-11-22-session19/scripts")
from hang_watchdog import Watchdog
import nvfp4rt
from nvfp4rt import driver
from nvfp4rt.bench import time_op
from nvfp4rt.ops.gemm_wgmma_cluster import GemmClusterPlan
from nvfp4rt.ops.dual_gemm_tiles import DualGemmTilesPlan
import exp1h as H

wd = Watchdog(60)
print(nvfp4rt.device().properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)


def best(f, n=3, iters=40):
    wd.arm("timing")
    r = min(time_op(f, iters=iters).median_us for _ in range(n))
    wd.disarm()
    return r


keep = []
for kind, (m, n, k), cfgs in [("gemm", (128, 7168, 16384), [(None, None), (3, 8), (3, 4), (4, 8)]),
                              ("gemm", (128, 4096, 7168), [(None, None), (3, 8), (3, 4)]),
                              ("dual", (256, 4096, 7168), [(None, None), (4, 4), (2, 8), (3, 4)]),
                              ("dual", (256, 3072, 4096), [(None, None), (4, 4), (2, 8)])]:
    P = DualGemmTilesPlan if kind == "dual" else GemmClusterPlan
    d, args, c = (H.dual_args if kind == "dual" else H.gemm_args)(m, n, k, 1, "competition")
    plans = {}
    for st, ab in cfgs:
        try:
            p = P(m, n, k, 1, stages=st, a_bufs=ab) if kind == "dual" or st is None else \
                GemmClusterPlan(m, n, k, 1, ksplit=2 if k != 7168 else None, ks_stream=None if k != 7168 else True,
                                stages=st, a_bufs=ab)
        except ValueError as e:
            print(kind, (st, ab), e); continue
        p(*args)
        plans[(st, ab)] = p
    driver.call("cuCtxSynchronize")
    keep.append((plans, args))
    out = {cf: [] for cf in plans}
    for rnd in range(2):
        for cf, p in plans.items():
            out[cf].append((best(lambda p=p: p._launch.launch()), best(lambda p=p: p(*args))))
    for cf, p in plans.items():
        print(f"{kind} {m}x{n}x{k} stages,a_bufs={cf}: " + "  ".join(f"{a:.2f} / {b:.2f}" for a, b in out[cf])
              + f"  {p!r}", flush=True)
print("done", time.strftime("%H:%M:%S"), flush=True)
