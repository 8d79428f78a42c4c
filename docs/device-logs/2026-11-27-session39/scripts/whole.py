"""Session 39 run 5: whole-tile rings, (2 B stages, 8 a16 buffers) as WHOLE_TILE_RINGS has it against (2, 4), on
competition cases 4 and 3, with the bench's per-group peer (nvfp4rt.gemm once per group) timed between them, so each
round gives both ratios.  Same inputs; bits compared, the float64 reference checked.  Whole calls, phases spread,
medians of 100, ROUNDS rounds.  Usage: whole.py [ROUNDS] [CASES...]"""
import sys
import time

import numpy as np

sys.path.insert(0, ".")
from nvfp4rt import driver, reference  # noqa: E402
from nvfp4rt.bench import DriverTimer, get_op, time_op  # noqa: E402
from nvfp4rt.bench_grouped_gemm import GroupedGemmBench  # noqa: F401,E402
from nvfp4rt.ops import grouped_gemm as GG  # noqa: E402
from nvfp4rt.ops import grouped_gemm_mtiles as GM  # noqa: E402


def main():
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 8
    cases = [int(c) for c in sys.argv[2:]] or [4, 3]
    dev = driver.device()
    print(dev.properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)
    timer = DriverTimer(dev, None)
    adapter = get_op("grouped_gemm")(dev, timer.stream)
    for case in cases:
        st = adapter.make_inputs({"case": case}, np.random.default_rng())
        layouts = [GG._raw_groups([v])[0][3] for v in st.views]
        refs = reference.grouped_gemm_ref(st.host.groups)
        plans, bits = {}, []
        for label, rings in (("S2 A8", (2, 8)), ("S2 A4", (2, 4))):
            p = plans[label] = GM.GroupedGemmMTilePlan(st.shapes, layouts, stages=rings[0], a_bufs=rings[1])
            outs = p(st.views)
            driver.call("cuCtxSynchronize")
            ok = all(reference.check(o.numpy(), r).ok for o, r in zip(outs, refs))
            bits.append([o.numpy().view(np.uint16).copy() for o in outs])
            print(f"case {case} {label}: {p!r} reference ok {ok}", flush=True)
        print(f"case {case}: bits equal {all(np.array_equal(a, b) for a, b in zip(*bits))}", flush=True)
        peer = adapter.peers(st)["nvfp4rt_gemm_per_group"].fn
        sums = {"S2 A8": [], "S2 A4": [], "peer": []}
        for rnd in range(rounds):
            line = []
            for label in ("S2 A8", "peer", "S2 A4"):
                fn = peer if label == "peer" else (lambda p=plans[label]: p(st.views))
                t = time_op(fn).median_us
                sums[label].append(t)
                line.append(f"{label} {t:7.2f}")
            r8, r4 = sums["peer"][-1] / sums["S2 A8"][-1], sums["peer"][-1] / sums["S2 A4"][-1]
            print(f"case {case} round {rnd}: {'  '.join(line)}  ratio A8 {r8:.3f} A4 {r4:.3f}", flush=True)
        med = {k: float(np.median(v)) for k, v in sums.items()}
        print(f"case {case} medians of rounds: " + "  ".join(f"{k} {v:.2f}" for k, v in med.items())
              + f"  ratio A8 {med['peer'] / med['S2 A8']:.3f} A4 {med['peer'] / med['S2 A4']:.3f}", flush=True)
    print("done", time.strftime("%H:%M:%S"))


if __name__ == "__main__":
    main()
