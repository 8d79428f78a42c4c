"""Session 34, device run 9: does the launch order matter elsewhere, and is "most rows first" near the best order?

1. The m-tile plan (cases 1, 3 and 4): its m tiles in the given order (group by group), fullest first (stable) and
   emptiest first.  The kernel's units follow the m-tile table, so the order is the table's (the plan's `tiles`).
2. The cluster plan on case 2 with the committed cut: the group orders "most rows first" (committed), "fewest rows
   first" and three random permutations (seeded), forced through grouped_gemm_cluster.launch_order.
Every output bit for bit the default plan's (checked against the reference); whole call and kernel alone, L2
cleared, best of 3 medians of 40, three interleaved rounds."""
import sys
import time

import numpy as np

sys.path.insert(0, "tools")
from nvfp4rt.ops import grouped_gemm_cluster as GC  # noqa: E402
from nvfp4rt.ops import grouped_gemm_mtiles as MT  # noqa: E402

COMMITTED_ORDER = GC.launch_order


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
    for case, kind in ((1, "mtiles"), (3, "mtiles"), (4, "mtiles"), (2, "cluster")):
        bench = get_op("grouped_gemm")()
        st = bench.make_inputs({"case": case}, np.random.default_rng())
        keep.append(st)
        layouts = [GG._raw_groups([v])[0][3] for v in st.views]
        G = len(st.shapes)
        if kind == "mtiles":
            variants = ["given", "fullest", "emptiest"]
        else:
            rng = np.random.default_rng(34)
            perms = [tuple(int(x) for x in rng.permutation(G)) for _ in range(3)]
            variants = ["committed", "fewest"] + [f"random{p}" for p in perms]
        ref_out = None
        for v in variants:
            if kind == "mtiles":
                p = MT.GroupedGemmMTilePlan(st.shapes, layouts)
                if v != "given":
                    p.tiles = tuple(sorted(p.tiles, key=lambda t: -t.rows if v == "fullest" else t.rows))
                desc = f"tiles rows {[t.rows for t in p.tiles]}"
            else:
                if v == "committed":
                    GC.launch_order = COMMITTED_ORDER
                elif v == "fewest":
                    GC.launch_order = lambda s: tuple(sorted(range(len(s)), key=lambda i: int(s[i][0])))
                else:
                    GC.launch_order = lambda s, o=eval(v[6:]): o
                p = GC.GroupedGemmClusterPlan(st.shapes, layouts)
                GC.launch_order = COMMITTED_ORDER
                desc = f"order {p.geometry.order}, {p.geometry.clusters} runs, split {p.geometry.split_tiles}"
            for arrs in st.dev:
                arrs["c"].fill(np.nan)
            wd.arm(v); p(st.views); driver.call("cuCtxSynchronize"); wd.disarm()
            out = [arrs["c"].numpy().copy() for arrs in st.dev]
            if ref_out is None:
                ref_out = out
                bad = [i for i, (o, g) in enumerate(zip(out, st.host.groups))
                       if not reference.check(o.transpose(1, 2, 0), reference.gemm_ref(g.a, g.b, g.sfa, g.sfb)).ok]
                verdict = "reference OK" if not bad else f"reference FAIL {bad}"
            else:
                same = all(np.array_equal(a.view(np.uint16), b.view(np.uint16)) for a, b in zip(ref_out, out))
                verdict = "bits equal" if same else "bits DIFFER"
            name = f"case {case} {kind} {v}"
            print(f"  {name}: {desc}, {verdict}", flush=True)
            runs[name] = (p, st.views)
    res = {name: [] for name in runs}
    for rnd in range(3):
        for name, (p, views) in runs.items():
            res[name].append((best(lambda p=p, v=views: p(v)), best(lambda p=p: p._launch.launch())))
    for name in runs:
        print(f"  {name:44s} whole " + " ".join(f"{w:7.2f}" for w, _ in res[name]) + "   kernel alone "
              + " ".join(f"{g:7.2f}" for _, g in res[name]), flush=True)
    print("done", time.strftime("%H:%M:%S"), flush=True)


if __name__ == "__main__":
    main()
