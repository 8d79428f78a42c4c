"""Session 47: the dual tiles' whole-tile rule where whole tiles leave a quarter of the SMs idle.  For each shape whose
default is whole 128-row tiles on at most 3/4 of the SMs, the op's plan against the tiles' stream-K over clusters of 1
in runs of dual_gemm_tiles.aligned_run units (a quarter tile shorter than a whole tile), both checked against the
float64 reference in both distributions; whole calls, L2 cleared, launch phases spread, best of 3 medians of 40,
interleaved rounds.  Usage (from the repository root): rule47.py ROUNDS"""
import sys
import time

sys.path.insert(0, ".")
sys.path.insert(0, "docs/device-logs/2026-11-22-session27/scripts")
import exp1h as H  # noqa: E402
import nvfp4rt  # noqa: E402
from nvfp4rt import driver, reference  # noqa: E402
from nvfp4rt.bench import time_op  # noqa: E402
from nvfp4rt.ops import dual_gemm  # noqa: E402
from nvfp4rt.ops import dual_gemm_tiles as DT  # noqa: E402

SHAPES = [(256, 3072, 4096), (192, 3072, 4096), (256, 3072, 2048), (384, 2048, 4096), (256, 2560, 2048)]


def main():
    rounds = int(sys.argv[1])
    dev = nvfp4rt.device()
    print(dev.properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)
    sms = dev.properties.sm_count
    cases = []
    for m, n, k in SHAPES:
        ks = -(-k // 256)
        units = -(-m // 128) * (2 * n // 128) * ks
        run = DT.aligned_run(units, ks, sms)
        plans = {"op": dual_gemm.plan_dual_gemm_silu(m, n, k),
                 f"sk{run}": DT.DualGemmTilesPlan(m, n, k, 1, cluster=1, units_per_cluster=run)}
        for nm, p in plans.items():
            for dist in ("competition", "wide"):
                d, args, c = H.dual_args(m, n, k, 1, dist)
                p(*args)
                driver.call("cuCtxSynchronize")
                res = reference.check(c.numpy().transpose(1, 2, 0),
                                      reference.dual_gemm_silu_ref(d.a, d.b1, d.b2, d.sfa, d.sfb1, d.sfb2))
                print(f"{(m, n, k)} {nm} {dist}: {'OK' if res.ok else 'FAIL ' + str(res)}  {p!r}", flush=True)
        d, args, c = H.dual_args(m, n, k, 1, "competition")
        cases.append(((m, n, k), plans, args))
    res = {}
    for _ in range(rounds):
        for shape, plans, args in cases:
            for nm, p in plans.items():
                t = min(time_op(lambda p=p: p(*args), iters=40).median_us for _ in range(3))
                res.setdefault((shape, nm), []).append(t)
    for (shape, nm), ts in res.items():
        print(f"{str(shape):18s} {nm:5s} " + " ".join(f"{t:6.2f}" for t in ts), flush=True)
    print("done", time.strftime("%H:%M:%S"), flush=True)


if __name__ == "__main__":
    main()
