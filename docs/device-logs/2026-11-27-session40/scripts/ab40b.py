"""Session 40 run 3: the committed wide decode in the cluster plan ('wide', the default where groups share k)
against the item decode ('items', wide_decode=False), on competition case 2 and eight groups of n = 4096..4992,
k = 2048; then the m-tile plan's case 1 and case 3 with each decode (the m-tile plans keep the item decode, which
also warms their table in L2; 'wide' here swaps the decoder in, so it warms nothing).  Bits compared, the float64
reference checked; whole calls, L2 cleared, phases spread, medians of 100, ROUNDS interleaved rounds.
Usage: ab40b.py [ROUNDS]"""
import sys
import time

import numpy as np

sys.path.insert(0, ".")
from nvfp4rt import data, driver, reference  # noqa: E402
from nvfp4rt.bench import DriverTimer, get_op, time_op  # noqa: E402
from nvfp4rt.bench_grouped_gemm import GroupedGemmBench  # noqa: F401,E402
from nvfp4rt.ops import decode_a16 as D  # noqa: E402
from nvfp4rt.ops import grouped_gemm as GG  # noqa: E402
from nvfp4rt.ops import grouped_gemm_cluster as GC  # noqa: E402
from nvfp4rt.ops import grouped_gemm_mtiles as GM  # noqa: E402

sys.path.insert(0, "tests")
from test_grouped_gemm import _device_groups  # noqa: E402


def main():
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 4
    dev = driver.device()
    print(dev.properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)
    adapter = get_op("grouped_gemm")(dev, DriverTimer(dev, None).stream)
    problems = []
    for case in (2, 1, 3):
        st = adapter.make_inputs({"case": case}, np.random.default_rng())
        problems.append((f"case {case}", st.shapes, [GG._raw_groups([v])[0][3] for v in st.views], st.views,
                         st.host.groups, case != 2))
    shapes = [(m, 4096 + 128 * i, 2048) for i, m in enumerate((80, 176, 128, 72, 64, 248, 96, 160))]
    d = data.grouped_gemm_data(shapes, seed=None, distribution="wide")
    problems.append(("mixed n", shapes, None, [tuple(g) for g in _device_groups(d)], d.groups, False))
    runs = []
    for name, shapes, layouts, views, host, mtiles in problems:
        refs = reference.grouped_gemm_ref(host)
        bits = None
        for label in ("items", "wide"):
            if mtiles:
                p = GM.GroupedGemmMTilePlan(shapes, layouts)
                if label == "wide":
                    p._decode = D.GroupedDecodeA16([(m, k) for m, _, k in shapes], wide=True)
                    p._l2_warm = ()
            else:
                p = GC.GroupedGemmClusterPlan(shapes, layouts, wide_decode=label == "wide")
            outs = p(views)
            driver.call("cuCtxSynchronize")
            ok = all(reference.check(o.numpy() if layouts else o.numpy().transpose(1, 2, 0), r).ok
                     for o, r in zip(outs, refs))
            got = [np.asarray(o.numpy()).view(np.uint16).copy() for o in outs]
            same = bits is None or all(np.array_equal(a, b) for a, b in zip(got, bits))
            bits = bits or got
            print(f"{name} {label:6s}: {p!r} reference ok {ok}, bits equal {same}", flush=True)
            runs.append((name, label, lambda p=p, v=views: p(v)))
    for rnd in range(rounds):
        for name, label, fn in runs:
            t = time_op(fn)
            print(f"round {rnd}: {name} {label:6s} whole {t.median_us:7.2f} (p10 {t.p10_us:7.2f}, p90 {t.p90_us:7.2f})",
                  flush=True)
    print("done", time.strftime("%H:%M:%S"))


if __name__ == "__main__":
    main()
