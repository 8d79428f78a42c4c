"""Session 40: why the cluster kernel's N = 64 unit costs more than its N = 96 one (19-units40.log: 1946 against
1416 ns).  The SASS of the eight unit loops is the same instruction for instruction, bar the HGMMA's N, so the
question is whether a loop's place in the code or its wgmma shape decides.  Builds, each from the generator's own
pieces (timing and bits only; the committed kernel is 'committed'):
  committed  loops emitted N = 256, 224, ..., 32 (the generator's order);
  reversed   loops emitted N = 32, 64, ..., 256 (the same code, other addresses);
  no64       the committed text with tiles of <= 64 rows dispatched to the N = 96 loop (rows past the group's are
             TMA's zero fill, as for any tile; the epilogue's block guards skip them).
Per build: the unit cost at N = 32 ... 224 as in units40.py (one group of N rows, 65 whole tiles, k = 8192 against
4096), and competition case 2's whole call against the committed build's, bits compared.  Usage: units41.py [ROUNDS]"""
import sys
import time
from functools import lru_cache

import numpy as np

sys.path.insert(0, ".")
sys.path.insert(0, "tests")
sys.path.insert(0, "tools")
import gen_grouped_gemm_cluster_ptx as gen  # noqa: E402
from nvfp4rt import data, driver, reference  # noqa: E402
from nvfp4rt.bench import DriverTimer, get_op, time_op  # noqa: E402
from nvfp4rt.bench_grouped_gemm import GroupedGemmBench  # noqa: F401,E402
from nvfp4rt.module import load  # noqa: E402
from nvfp4rt.ops import grouped_gemm as GG  # noqa: E402
from nvfp4rt.ops import grouped_gemm_cluster as GC  # noqa: E402
from test_grouped_gemm import _device_groups  # noqa: E402

N_VALUES = (32, 64, 96, 128, 160, 192, 224)


def text(build: str) -> str:
    setup, loop, post = gen.split_main_loop()
    order = tuple(reversed(gen.TOKEN_VARIANTS)) if build == "reversed" else gen.TOKEN_VARIANTS
    dispatch = tuple(n for n in gen.TOKEN_VARIANTS if n > 64) if build == "no64" else gen.TOKEN_VARIANTS
    if build == "committed":
        return gen.generate()
    return (gen.HEADER + gen.SIGNATURE + gen.PARAMETERS + gen.dual.CARVE_UP + gen.CONSUMER_INTRO + setup
            + gen.seg_loop(dispatch) + gen.unit_loops(loop, order) + post + gen.segment_epilogue() + "\n"
            + gen.store_tile() + "\n" + gen.PRODUCERS)


def use(build: str):
    @lru_cache(maxsize=None)
    def kernel(ordinal, constants):
        return load(text(build), device=driver.Device(ordinal), target="sm_90a",
                    constants=dict(constants)).kernel(GC._ENTRY)
    GC._kernel = kernel


def main():
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    dev = driver.device()
    print(dev.properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)
    assert text("committed") == (gen.ROOT / "ptx" / "grouped_gemm_nvfp4_wgmma_cluster.ptx").read_text()
    adapter = get_op("grouped_gemm")(dev, DriverTimer(dev, None).stream)
    st = adapter.make_inputs({"case": 2}, np.random.default_rng())
    layouts = [GG._raw_groups([v])[0][3] for v in st.views]
    refs = reference.grouped_gemm_ref(st.host.groups)
    inputs = {}
    for n_tok in N_VALUES:
        for k in (4096, 8192):
            shapes = [(n_tok, 65 * 256, k)]
            d = data.grouped_gemm_data(shapes, seed=None, distribution="wide")
            inputs[(n_tok, k)] = (shapes, [tuple(g) for g in _device_groups(d)])
    runs, case2, bits = {}, {}, None
    for build in ("committed", "reversed", "no64"):
        use(build)
        for key, (shapes, groups) in inputs.items():
            p = GC.GroupedGemmClusterPlan(shapes)
            p(groups)
            runs[(build,) + key] = (p, groups)
        p = GC.GroupedGemmClusterPlan(st.shapes, layouts)
        outs = p(st.views)
        driver.call("cuCtxSynchronize")
        got = [np.asarray(o.numpy()).view(np.uint16).copy() for o in outs]
        ok = all(reference.check(o.numpy(), r).ok for o, r in zip(outs, refs))
        same = bits is None or all(np.array_equal(a, b) for a, b in zip(got, bits))
        bits = bits or got
        print(f"{build}: case 2 {p!r} reference ok {ok}, bits equal {same}", flush=True)
        case2[build] = p
    best = {}
    for rnd in range(rounds):
        for key, (p, groups) in runs.items():
            t = time_op(lambda p=p, g=groups: p(g)).median_us
            best[key] = min(best.get(key, t), t)
        for build, p in case2.items():
            t = time_op(lambda p=p: p(st.views))
            print(f"round {rnd}: case 2 {build:9s} whole {t.median_us:7.2f} (p10 {t.p10_us:7.2f})", flush=True)
    for build in ("committed", "reversed", "no64"):
        costs = [1000 * (best[(build, n, 8192)] - best[(build, n, 4096)]) / 16 for n in N_VALUES]
        print(f"{build:9s} ns per unit at N = {N_VALUES}: " + " ".join(f"{c:5.0f}" for c in costs), flush=True)
    print("done", time.strftime("%H:%M:%S"))


if __name__ == "__main__":
    main()
