"""Session 19, device run 9: the 256-row dual cluster kernel (m64n256k16: each decoded B fragment feeds twice the
tensor work) on the m = 256 shapes, in its stream-K forms over all SMs, against the 128-row whole tiles the op layer
picks.  Correctness on fresh data, then whole call / kernel alone, L2 cleared, interleaved, best of 3 medians."""
import sys, time
sys.path.insert(0, "tools"); sys.path.insert(0, "docs/device-logs/2026-11-22-session19/scripts")
from hang_watchdog import Watchdog
import nvfp4rt
from nvfp4rt import driver, reference
from nvfp4rt.bench import time_op
from nvfp4rt.ops.dual_gemm_cluster import DualGemmClusterPlan
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
for (m, n, k) in [(256, 4096, 7168), (256, 3072, 4096)]:
    d, args, c = H.dual_args(m, n, k, 1, "competition")
    ref = reference.dual_gemm_silu_ref(d.a, d.b1, d.b2, d.sfa, d.sfb1, d.sfb2)
    ks = -(-k // 256)
    cands = {"tiles (op layer)": lambda: DualGemmTilesPlan(m, n, k, 1),
             "cluster auto": lambda: DualGemmClusterPlan(m, n, k, 1),
             "cluster sk c2": lambda: DualGemmClusterPlan(m, n, k, 1, cluster=2),
             "cluster sk c1": lambda: DualGemmClusterPlan(m, n, k, 1, cluster=1)}
    tiles = (m // 256) * (n // 64)
    for upc in sorted({-(-tiles * ks // 132), -(-tiles * ks // 128), ks // 2, -(-ks // 2) + 1}):
        cands[f"cluster sk c1 upc={upc}"] = (lambda upc=upc: DualGemmClusterPlan(m, n, k, 1, cluster=1, units_per_cluster=upc))
    plans = {}
    for name, mk in cands.items():
        try:
            p = mk()
        except ValueError as e:
            print(f"  {name}: {e}", flush=True)
            continue
        c.fill(float("nan"))
        wd.arm(name); p(*args); driver.call("cuCtxSynchronize"); wd.disarm()
        res = reference.check(c.numpy().transpose(1, 2, 0), ref)
        print(f"{m}x{n}x{k} {name}: {'OK' if res.ok else 'FAIL ' + str(res)} {p!r}", flush=True)
        plans[name] = p
    keep.append((plans, args))
    out = {nm: [] for nm in plans}
    for rnd in range(2):
        for nm, p in plans.items():
            out[nm].append((best(lambda p=p: p(*args)), best(lambda p=p: p._launch.launch())))
    for nm in plans:
        print(f"  {nm:28s}: " + "  ".join(f"{a:.2f} / {b:.2f}" for a, b in out[nm]), flush=True)
print("done", time.strftime("%H:%M:%S"), flush=True)
