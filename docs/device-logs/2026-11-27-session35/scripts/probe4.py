"""Session 35, device run 5 (probe4.py, from probe2.py): the cost model's SPLIT_COST (1, 2, 3, 4, 6) and
EPILOGUE_COST (0.3, 1.0) on case 1, SPLIT_COST 1-4 on case 2 forced onto the m-tile plan beside its default (the
grouped cluster kernel; bits not compared: its sums run in another order), and cases 3 and 4 with the even runs'
path (no starts-table round trip).  What follows is probe2.py's description.

For competition cases 1, 3 and 4: "old" (every tile of row class 128, runs of the old even unit share: the committed
kernel's work), "cut128" (class 128, the runs cut by unit_starts) and "new" (the default: row classes per tile, runs
cut on their costs).  Every variant's output must equal "old"'s bit for bit (the same products summed in the same
order); "old" is checked against the float64 reference.  Whole call and GEMM launch alone, L2 cleared, best of 3
medians of 40, two interleaved rounds."""
import sys
import time

import numpy as np

sys.path.insert(0, ".")
from nvfp4rt import driver, reference  # noqa: E402
from nvfp4rt.bench import time_op  # noqa: E402
from nvfp4rt.bench_grouped_gemm import GroupedGemmBench  # noqa: E402
from nvfp4rt.ops import grouped_gemm as GG  # noqa: E402
from nvfp4rt.ops import grouped_gemm_mtiles as GM  # noqa: E402


def best(f):
    return min(time_op(f, iters=40, warmup=5).median_us for _ in range(3))


def main():
    print(driver.device().properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)
    gb = GroupedGemmBench()
    runs = []
    for case in (1, 2, 3, 4):
        st = gb.make_inputs({"case": case}, np.random.default_rng())
        layouts = [GG._raw_groups([v])[0][3] for v in st.views]
        tiles = GM.mtiles(st.shapes)
        n, k = st.shapes[0][1], st.shapes[0][2]
        cl, upc = GM.schedule(len(tiles), n, k, 132, 66)
        variants = {"old": dict(row_classes=(128,), cluster=cl, units_per_cluster=upc), "new": {}}
        if case in (1, 2):
            variants.update({f"split{c}": dict(split_cost=c) for c in (2.0, 3.0, 4.0)})
        if case == 1:
            variants.update({"split6.0": dict(split_cost=6.0), "epi1split2": dict(split_cost=2.0, epi=1.0),
                             "epi1split3": dict(split_cost=3.0, epi=1.0)})
        ref_bits = None
        for name, kw in variants.items():
            kw = dict(kw)
            GM.EPILOGUE_COST = kw.pop("epi", 0.3)
            p = GM.GroupedGemmMTilePlan(st.shapes, layouts, **kw)
            GM.EPILOGUE_COST = 0.3
            outs = p(st.views)
            driver.call("cuCtxSynchronize")
            bits = [np.asarray(o.numpy()).view(np.uint16).copy() for o in outs]
            if ref_bits is None:
                ref_bits = bits
                refs = reference.grouped_gemm_ref(st.host.groups)
                ok = all(reference.check(o.numpy(), r).ok for o, r in zip(outs, refs))
                print(f"case {case} old vs the float64 reference: {ok}", flush=True)
            same = all(np.array_equal(a, b) for a, b in zip(bits, ref_bits))
            print(f"case {case} {name:7s} {p!r} classes={p.row_classes} tile classes={p.tile_classes} "
                  f"runs={len(p.starts) - 1} bits equal to old: {same}", flush=True)
            runs.append((f"case {case} {name}", p, st))
        if case == 2:
            p = GG.plan_grouped_gemm(st.shapes, layouts=layouts)
            p(st.views)
            driver.call("cuCtxSynchronize")
            print(f"case 2 default {p!r}", flush=True)
            runs.append(("case 2 default", p, st))
    for rnd in range(2):
        for label, p, st in runs:
            tw, tg = best(lambda p=p, s=st: p(s.views)), best(p._launch.launch)
            print(f"round {rnd}: {label:14s} whole {tw:.2f}  gemm alone {tg:.2f} us", flush=True)
    print("done", time.strftime("%H:%M:%S"))


if __name__ == "__main__":
    main()
