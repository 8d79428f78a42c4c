"""Session 34, device run 6: the committed schedule (cluster_geometry: groups in launch_order, cut_runs under
(0.6, 1.0, 2.5)) against the one it replaces (groups in the caller's order, session 30's balanced cut under
(0.8, 6 on a tile's first unit); rebuilt here by `old_geometry`) and against run 5's cut (hybrid.py's greedy, which
ends each run at the farthest boundary; the committed greedy ends it where the next run has the most room), on the
seven problems of run 5.  Every output bit for bit the old schedule's (checked against the reference); whole call
and kernel alone, L2 cleared, best of 3 medians of 40, three interleaved rounds."""
import dataclasses
import sys
import time

import numpy as np

sys.path.insert(0, "tools")
sys.path.insert(0, "docs/device-logs/2026-11-27-session34/scripts")
import hybrid  # noqa: E402
from probe3 import install  # noqa: E402
from probe4 import PROBLEMS  # noqa: E402
from nvfp4rt.ops import grouped_gemm_cluster as GC  # noqa: E402


def old_starts(unit_costs, tile_first, clusters):
    """Session 30's cut (the committed _balanced_starts before this session), without the chain split (no problem
    here has a tile of more than 32 stages)."""
    total = float(unit_costs.sum())
    cum = np.concatenate(([0.0], np.cumsum(unit_costs)))
    targets = total * np.arange(1, clusters) / clusters
    cuts = np.searchsorted(cum, targets, side="left")
    lower = np.maximum(cuts - 1, 0)
    nearer = np.where(np.abs(cum[lower] - targets) <= np.abs(cum[np.minimum(cuts, len(cum) - 1)] - targets),
                      lower, cuts)
    units = len(unit_costs)
    return sorted({0, *[int(c) for c in nearer if 0 < c < units]}) + [units]


def old_geometry(shapes, runs):
    """The schedule before this session: the caller's order, DECODE_COST 0.8, EPILOGUE_COST 6 on a tile's first
    unit, the balanced cut."""
    geo = GC.cluster_geometry(shapes, runs)
    groups, unit, tile = [], 0, 0
    for m, n, k in shapes:
        g = GC.ClusterGroup(m, n, k, -(-m // GC.TILE_M), -(-n // (GC.TILE_N * geo.cluster)), -(-k // GC.STAGE_K),
                            unit, tile)
        groups.append(g)
        unit += g.units
        tile += g.tiles
    costs, firsts = [], []
    for g in groups:
        for mt in range(g.m_tiles):
            c = np.full(g.k_stages, GC.unit_cost(g.rows(mt), 0.8))
            c[0] += 6.0 * GC.tokens(g.rows(mt)) / GC.TILE_M
            costs.append(np.tile(c, g.n_tiles))
    starts = old_starts(np.concatenate(costs), None, min(runs, unit))
    return dataclasses.replace(geo, groups=tuple(groups), starts=tuple(starts), order=tuple(range(len(shapes))))


def main():
    from hang_watchdog import Watchdog
    from nvfp4rt import driver, reference
    from nvfp4rt.bench import get_op, time_op
    from nvfp4rt.ops import grouped_gemm as GG

    wd = Watchdog(400)
    print(driver.device().properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)

    def best(f):
        wd.arm("timing")
        r = min(time_op(f, iters=40, warmup=5).median_us for _ in range(3))
        wd.disarm()
        return r

    runs, keep = {}, []
    for pname, prob in PROBLEMS.items():
        bench = get_op("grouped_gemm")()
        if isinstance(prob, int):
            st = bench.make_inputs({"case": prob}, np.random.default_rng())
        else:
            bench._shapes = lambda shape, sh=prob: [tuple(s) for s in sh]
            st = bench.make_inputs({"case": 0}, np.random.default_rng())
        keep.append(st)
        layouts = [GG._raw_groups([v])[0][3] for v in st.views]
        ref_out = None
        for cname in ("old", "committed", "farthest"):
            p = GC.GroupedGemmClusterPlan(st.shapes, layouts)
            if cname == "old":
                g = old_geometry(st.shapes, p.max_clusters)
                p.geometry = g
                install(p, g.starts)
            elif cname == "farthest":
                install(p, hybrid.hybrid_starts(p.geometry, p.max_clusters, 2.5)[0])
            for arrs in st.dev:
                arrs["c"].fill(np.nan)
            wd.arm(cname); p(st.views); driver.call("cuCtxSynchronize"); wd.disarm()
            out = [arrs["c"].numpy().copy() for arrs in st.dev]
            if ref_out is None:
                ref_out = out
                bad = [i for i, (o, g) in enumerate(zip(out, st.host.groups))
                       if not reference.check(o.transpose(1, 2, 0), reference.gemm_ref(g.a, g.b, g.sfa, g.sfb)).ok]
                verdict = "reference OK" if not bad else f"reference FAIL {bad}"
            else:
                same = all(np.array_equal(a.view(np.uint16), b.view(np.uint16)) for a, b in zip(ref_out, out))
                verdict = "bits equal" if same else "bits DIFFER"
            name = f"{pname} {cname}"
            print(f"  {name}: order {p.geometry.order}, {p.geometry.clusters} runs, split {p.geometry.split_tiles}, "
                  f"{verdict}", flush=True)
            runs[name] = (p, st.views)
    res = {name: [] for name in runs}
    for rnd in range(3):
        for name, (p, views) in runs.items():
            res[name].append((best(lambda p=p, v=views: p(v)), best(lambda p=p: p._launch.launch())))
    for name in runs:
        print(f"  {name:18s} whole " + " ".join(f"{w:7.2f}" for w, _ in res[name]) + "   kernel alone "
              + " ".join(f"{g:7.2f}" for _, g in res[name]), flush=True)
    print("done", time.strftime("%H:%M:%S"), flush=True)


if __name__ == "__main__":
    main()
