"""Session 40: the cluster kernel with four unit loops, which ptxas does not serialise (no C7511; the committed
eight-loop build waits for each wgmma), now that the A16 slices have removed the all-fill cost (session 30 found
four-loop builds level on case 2, with that cost present).  Builds from the generator's pieces (timing and bits only;
each dispatches a tile to the smallest of its loops that holds the tile's rows, so only problems whose tiles fit
the largest loop run on it): committed (N = 32 ... 256), L4a (96, 160, 192, 224), L4b (64, 96, 192, 224).
Competition case 2 (largest tile 196 rows), bits compared, float64 reference; and the unit cost at each build's N
(one group of N rows, 65 whole tiles, k = 8192 against 4096).  Whole calls, L2 cleared, phases spread, medians of
100.  Usage: loops40.py [ROUNDS]"""
import sys
import time
from functools import lru_cache
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, "tools")
from ab40e import checked, dev_problem  # noqa: E402
import gen_grouped_gemm_cluster_ptx as gen  # noqa: E402
from nvfp4rt import driver  # noqa: E402
from nvfp4rt.bench import DriverTimer, get_op, time_op  # noqa: E402
from nvfp4rt.module import load  # noqa: E402
from nvfp4rt.ops import grouped_gemm as GG  # noqa: E402
from nvfp4rt.ops import grouped_gemm_cluster as GC  # noqa: E402

BUILDS = {"committed": gen.TOKEN_VARIANTS, "L4a": (96, 160, 192, 224), "L4b": (64, 96, 192, 224)}


def text(variants) -> str:
    setup, loop, post = gen.split_main_loop()
    return (gen.HEADER + gen.SIGNATURE + gen.PARAMETERS + gen.dual.CARVE_UP + gen.CONSUMER_INTRO + setup
            + gen.seg_loop(variants) + gen.unit_loops(loop, variants) + post + gen.segment_epilogue() + "\n"
            + gen.store_tile() + "\n" + gen.PRODUCERS)


def use(variants):
    @lru_cache(maxsize=None)
    def kernel(ordinal, constants):
        return load(text(variants), device=driver.Device(ordinal), target="sm_90a",
                    constants=dict(constants)).kernel(GC._ENTRY)
    GC._kernel = kernel


def main():
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    dev = driver.device()
    print(dev.properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)
    assert text(gen.TOKEN_VARIANTS) == (gen.ROOT / "ptx" / "grouped_gemm_nvfp4_wgmma_cluster.ptx").read_text()
    adapter = get_op("grouped_gemm")(dev, DriverTimer(dev, None).stream)
    st = adapter.make_inputs({"case": 2}, np.random.default_rng())
    layouts = [GG._raw_groups([v])[0][3] for v in st.views]
    units = {}
    for n_tok in sorted({n for v in BUILDS.values() for n in v if n <= 224}):
        for k in (4096, 8192):
            units[(n_tok, k)] = dev_problem([(n_tok, 65 * 256, k)])
    runs, uruns, bits = [], {}, {}
    for build, variants in BUILDS.items():
        use(variants)
        p = GC.GroupedGemmClusterPlan(st.shapes, layouts)
        checked(("case 2", build), p, st.views, st.host.groups, layouts, bits)
        runs.append((build, lambda p=p: p(st.views)))
        for (n_tok, k), (views, _) in units.items():
            if n_tok in variants:
                q = GC.GroupedGemmClusterPlan([(n_tok, 65 * 256, k)])
                q(views)
                uruns[(build, n_tok, k)] = (q, views)
    best = {}
    for rnd in range(rounds):
        for build, fn in runs:
            t = time_op(fn)
            print(f"round {rnd}: case 2 {build:9s} whole {t.median_us:7.2f} (p10 {t.p10_us:7.2f})", flush=True)
        for key, (q, views) in uruns.items():
            t = time_op(lambda q=q, v=views: q(v)).median_us
            best[key] = min(best.get(key, t), t)
    for build, variants in BUILDS.items():
        ns = [n for n in variants if (build, n, 8192) in best]
        costs = [1000 * (best[(build, n, 8192)] - best[(build, n, 4096)]) / 16 for n in ns]
        print(f"{build:9s} ns per unit at N = {tuple(ns)}: " + " ".join(f"{c:5.0f}" for c in costs), flush=True)
    print("done", time.strftime("%H:%M:%S"))


if __name__ == "__main__":
    main()
