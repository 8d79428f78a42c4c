"""Session 39 run 14: what the tensor-map acquire fences cost the m-tile GEMM (timing only).  'nofences' drops every
fence.proxy.tensormap::generic.acquire of the GROUPED build (the B producer's two, the A16 producer's, the storing
thread's), which is safe here only because the plans upload their tables once, calls before the timed ones.  It
bounds what maps passed by value (param space, no fence) could save.  Same inputs; bits compared, the float64
reference checked; whole calls, phases spread, medians of 100, ROUNDS interleaved rounds, the per-group peer in each
round for cases 3 and 4.  Usage: fences.py [ROUNDS] [CASES...]"""
import re
import sys
import time

import numpy as np

sys.path.insert(0, ".")
from nvfp4rt import driver, reference  # noqa: E402
from nvfp4rt.bench import DriverTimer, get_op, time_op  # noqa: E402
from nvfp4rt.bench_grouped_gemm import GroupedGemmBench  # noqa: F401,E402
from nvfp4rt.ops import gemm_wgmma_cluster as CL  # noqa: E402
from nvfp4rt.ops import grouped_gemm as GG  # noqa: E402
from nvfp4rt.ops import grouped_gemm_mtiles as GM  # noqa: E402

FENCE = re.compile(r"^    fence\.proxy\.tensormap::generic\.acquire\.gpu \[%\w+\], 128;.*\n", re.M)
_orig = CL.kernel_text
DROP = [False]


def patched(cons):
    text = _orig(cons)
    if DROP[0]:
        text, n = FENCE.subn("", text)
        assert n == 4, n
    return text


CL.kernel_text = patched


def main():
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 4
    cases = [int(c) for c in sys.argv[2:]] or [4, 3]
    dev = driver.device()
    print(dev.properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)
    timer = DriverTimer(dev, None)
    adapter = get_op("grouped_gemm")(dev, timer.stream)
    runs = []
    for case in cases:
        st = adapter.make_inputs({"case": case}, np.random.default_rng())
        layouts = [GG._raw_groups([v])[0][3] for v in st.views]
        refs = reference.grouped_gemm_ref(st.host.groups)
        bits = []
        for drop in (False, True):
            DROP[0] = drop
            CL._kernel.cache_clear()
            p = GM.GroupedGemmMTilePlan(st.shapes, layouts)
            outs = p(st.views)
            driver.call("cuCtxSynchronize")
            DROP[0] = False
            CL._kernel.cache_clear()
            ok = all(reference.check(o.numpy(), r).ok for o, r in zip(outs, refs))
            bits.append([o.numpy().view(np.uint16).copy() for o in outs])
            label = "nofences " if drop else "committed"
            print(f"case {case} {label}: {p!r} reference ok {ok}", flush=True)
            runs.append((case, label, lambda p=p, s=st: p(s.views)))
        print(f"case {case}: bits equal {all(np.array_equal(a, b) for a, b in zip(*bits))}", flush=True)
        if case in (3, 4):
            runs.append((case, "peer     ", adapter.peers(st)["nvfp4rt_gemm_per_group"].fn))
    for rnd in range(rounds):
        got = {}
        for case, label, fn in runs:
            t = time_op(fn)
            got[(case, label)] = t.median_us
            print(f"round {rnd}: case {case} {label} whole {t.median_us:7.2f} (p10 {t.p10_us:7.2f}, p90 {t.p90_us:7.2f})",
                  flush=True)
        for case in (3, 4):
            if (case, "peer     ") in got:
                print(f"round {rnd}: case {case} ratio committed {got[(case, 'peer     ')] / got[(case, 'committed')]:.3f}"
                      f" nofences {got[(case, 'peer     ')] / got[(case, 'nofences ')]:.3f}", flush=True)
    print("done", time.strftime("%H:%M:%S"))


if __name__ == "__main__":
    main()
