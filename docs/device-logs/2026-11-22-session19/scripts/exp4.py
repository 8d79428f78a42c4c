"""Session 19, device run 8: what the A decode prepass costs the whole call, and whether a smaller decode grid
lets the GEMM's CTAs start beside it (PDL): the K-split build uses 116 registers, so two 256-thread decode CTAs
fit beside one GEMM CTA; the dual's build uses 168.  Whole call, decode alone and GEMM alone, L2 cleared,
interleaved rounds, best of 3 medians (us)."""
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
dev = nvfp4rt.device()
print(dev.properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)


def best(f, n=3, iters=40):
    wd.arm("timing")
    r = min(time_op(f, iters=iters).median_us for _ in range(n))
    wd.disarm()
    return r


keep = []
for kind, (m, n, k) in [("gemm", (128, 7168, 16384)), ("gemm", (128, 7168, 2048)), ("dual", (256, 4096, 7168)),
                        ("dual", (256, 3072, 4096))]:
    P = DualGemmTilesPlan if kind == "dual" else GemmClusterPlan
    d, args, c = (H.dual_args if kind == "dual" else H.gemm_args)(m, n, k, 1, "competition")
    plans = {}
    for g in (None, 132, 264, 528):
        p = P(m, n, k, 1)
        if g is not None:
            p._decode.grid, p._decode._launch = g, None
        p(*args)
        plans[g or p._decode.grid] = p
    driver.call("cuCtxSynchronize")
    keep.append((plans, args))
    print(f"{kind} {m}x{n}x{k}: {next(iter(plans.values()))!r} regs {next(iter(plans.values())).kernel.attributes if hasattr(next(iter(plans.values())).kernel, 'attributes') else ''}", flush=True)
    res = {g: [] for g in plans}
    for rnd in range(2):
        for g, p in plans.items():
            res[g].append((best(lambda p=p: p(*args)), best(lambda p=p: p._decode._launch.launch()),
                           best(lambda p=p: p._launch.launch())))
    for g in plans:
        print(f"  decode grid {g:5d}: whole / decode alone / gemm alone: "
              + "  ".join(f"{a:.2f} / {b:.2f} / {c_:.2f}" for a, b, c_ in res[g]), flush=True)
print("done", time.strftime("%H:%M:%S"), flush=True)
