"""Session 36, device run 1: competition grouped cases 3 and 4 on the m-tile plan, variants of the schedule.

Case 3 (tiles of 96, 96, 107, 107, 106 rows; whole tiles, 120 CTAs): the default row classes (112, 96) against one
class (112,) (the critical tiles are 112 rows either way; only the 96-row tiles' CTAs finish earlier, and the build
holds one unit loop instead of two), against (128,), and against whole tiles in clusters of 2 and the (3, 8) rings.
Case 4 (four 128-row tiles; whole tiles, 128 CTAs): the default against clusters of 2 and the (3, 8) rings.
Every variant's output is compared bit for bit with the default's (the same products summed in the same order), and
the default against the float64 reference.  Whole call, GEMM launch alone and decode launch alone, L2 cleared, best
of 3 medians of 40, three interleaved rounds."""
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


VARIANTS = {
    3: {"default": {}, "one112": dict(row_classes=(112,)), "one128": dict(row_classes=(128,)),
        "cl2whole": dict(cluster=2, units_per_cluster=16), "rings38": dict(stages=3, a_bufs=8),
        "one112r38": dict(row_classes=(112,), stages=3, a_bufs=8)},
    4: {"default": {}, "cl2whole": dict(cluster=2, units_per_cluster=6), "rings38": dict(stages=3, a_bufs=8)},
}


def main():
    print(driver.device().properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)
    gb = GroupedGemmBench()
    runs = []
    for case, variants in VARIANTS.items():
        st = gb.make_inputs({"case": case}, np.random.default_rng())
        layouts = [GG._raw_groups([v])[0][3] for v in st.views]
        ref_bits = None
        for name, kw in variants.items():
            try:
                p = GM.GroupedGemmMTilePlan(st.shapes, layouts, **kw)
            except ValueError as e:
                print(f"case {case} {name}: not built: {e}", flush=True)
                continue
            outs = p(st.views)
            driver.call("cuCtxSynchronize")
            bits = [np.asarray(o.numpy()).view(np.uint16).copy() for o in outs]
            if ref_bits is None:
                ref_bits = bits
                refs = reference.grouped_gemm_ref(st.host.groups)
                ok = all(reference.check(o.numpy(), r).ok for o, r in zip(outs, refs))
                print(f"case {case} default vs the float64 reference: {ok}", flush=True)
            same = all(np.array_equal(a, b) for a, b in zip(bits, ref_bits))
            print(f"case {case} {name:9s} {p!r} classes={p.row_classes} tile classes={p.tile_classes} "
                  f"bits equal to default: {same}", flush=True)
            runs.append((f"case {case} {name}", p, st))
    for rnd in range(3):
        for label, p, st in runs:
            tw, tg = best(lambda p=p, s=st: p(s.views)), best(p._launch.launch)
            td = best(p._decode._launch.launch)
            print(f"round {rnd}: {label:18s} whole {tw:.2f}  gemm alone {tg:.2f}  decode alone {td:.2f} us", flush=True)
    print("done", time.strftime("%H:%M:%S"))


if __name__ == "__main__":
    main()
