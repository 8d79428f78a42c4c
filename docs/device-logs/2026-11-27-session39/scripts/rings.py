"""Session 39 run 3: competition cases 4 and 3 (whole tiles, one per CTA) on other rings and on clusters of two.
Variants of GroupedGemmMTilePlan: the default (cluster 1, 2 B stages, 8 a16 buffers), other (stages, a_bufs), and
cluster 2 on whole tiles (units_per_cluster = k stages: the two CTAs share the A16 box by multicast).  Same inputs;
bits compared with the default's, the float64 reference checked.  Whole calls, phases spread, medians of 100, ROUNDS
interleaved rounds.  Usage: rings.py [ROUNDS] [CASES...]"""
import sys
import time

import numpy as np

sys.path.insert(0, ".")
from nvfp4rt import driver, reference  # noqa: E402
from nvfp4rt.bench import time_op  # noqa: E402
from nvfp4rt.bench_grouped_gemm import GroupedGemmBench  # noqa: E402
from nvfp4rt.ops import grouped_gemm as GG  # noqa: E402
from nvfp4rt.ops import grouped_gemm_mtiles as GM  # noqa: E402


def variants(k_stages):
    return [("default", {}), ("S3 A8", dict(stages=3, a_bufs=8)), ("S2 A4", dict(stages=2, a_bufs=4)),
            ("S3 A4", dict(stages=3, a_bufs=4)), ("S4 A4", dict(stages=4, a_bufs=4)),
            ("cl2 whole", dict(cluster=2, units_per_cluster=k_stages, stages=2, a_bufs=8))]


def main():
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    cases = [int(c) for c in sys.argv[2:]] or [4, 3]
    print(driver.device().properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)
    gb = GroupedGemmBench()
    runs = []
    for case in cases:
        st = gb.make_inputs({"case": case}, np.random.default_rng())
        layouts = [GG._raw_groups([v])[0][3] for v in st.views]
        refs = reference.grouped_gemm_ref(st.host.groups)
        base = None
        for label, kw in variants(-(-st.shapes[0][2] // 256)):
            try:
                p = GM.GroupedGemmMTilePlan(st.shapes, layouts, **kw)
            except ValueError as e:
                print(f"case {case} {label}: refused ({e})", flush=True)
                continue
            outs = p(st.views)
            driver.call("cuCtxSynchronize")
            ok = all(reference.check(o.numpy(), r).ok for o, r in zip(outs, refs))
            bits = [o.numpy().view(np.uint16).copy() for o in outs]
            base = base or bits
            same = all(np.array_equal(a, b) for a, b in zip(base, bits))
            print(f"case {case} {label}: {p!r} reference ok {ok}, bits as default {same}", flush=True)
            runs.append((f"case {case} {label:9s}", p, st))
    for rnd in range(rounds):
        for label, p, st in runs:
            t = time_op(lambda p=p, s=st: p(s.views))
            print(f"round {rnd}: {label} whole {t.median_us:7.2f} (p10 {t.p10_us:7.2f}, p90 {t.p90_us:7.2f})",
                  flush=True)
    print("done", time.strftime("%H:%M:%S"))


if __name__ == "__main__":
    main()
