"""Session 39: the m-tile GEMM's epilogue with TMA stores (the default) against the consumers' copy-out
(tma_store=False), on the competition's grouped cases.  Both plans get the same inputs; their c must be equal bit for
bit and match the float64 reference.  Whole calls (decode + GEMM), phases spread, medians of 100, ROUNDS interleaved
rounds.  Usage: ab.py [ROUNDS] [CASES...]"""
import sys
import time

import numpy as np

sys.path.insert(0, ".")
from nvfp4rt import driver, reference  # noqa: E402
from nvfp4rt.bench import time_op  # noqa: E402
from nvfp4rt.bench_grouped_gemm import GroupedGemmBench  # noqa: E402
from nvfp4rt.ops import grouped_gemm as GG  # noqa: E402
from nvfp4rt.ops import grouped_gemm_mtiles as GM  # noqa: E402


def main():
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    cases = [int(c) for c in sys.argv[2:]] or [4, 3, 1, 2]
    print(driver.device().properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)
    gb = GroupedGemmBench()
    runs = []
    for case in cases:
        st = gb.make_inputs({"case": case}, np.random.default_rng())
        layouts = [GG._raw_groups([v])[0][3] for v in st.views]
        refs = reference.grouped_gemm_ref(st.host.groups)
        bits = {}
        for tma in (True, False):
            p = GM.GroupedGemmMTilePlan(st.shapes, layouts, tma_store=tma)
            outs = p(st.views)
            driver.call("cuCtxSynchronize")
            ok = all(reference.check(o.numpy(), r).ok for o, r in zip(outs, refs))
            bits[tma] = [o.numpy().view(np.uint16).copy() for o in outs]
            maps = sum(m is not None for m in p._c_maps)
            print(f"case {case} tma_store={tma}: {p!r} c maps {maps}/{len(p.tiles)}, reference ok {ok}", flush=True)
            runs.append((f"case {case} {'tma ' if tma else 'copy'}", p, st))
        same = all(np.array_equal(a, b) for a, b in zip(bits[True], bits[False]))
        print(f"case {case}: bits equal {same}", flush=True)
    for rnd in range(rounds):
        for label, p, st in runs:
            t = time_op(lambda p=p, s=st: p(s.views))
            print(f"round {rnd}: {label} whole {t.median_us:7.2f} (p10 {t.p10_us:7.2f}, p90 {t.p90_us:7.2f})",
                  flush=True)
    print("done", time.strftime("%H:%M:%S"))


if __name__ == "__main__":
    main()
