"""Session 39 run 9: C_PREFETCH (the B producer prefetches each tile's c into L2 through its c map with the tile's
last k stage) against 'nopf' (the same build without it, i.e. run 6's code) and the copy-out (tma_store=False, which
has no c map, so no prefetch either).  Same inputs for all three; bits compared, the float64 reference checked.  Whole calls, phases
spread, medians of 100, ROUNDS interleaved rounds.  Usage: ab2.py [ROUNDS] [CASES...]"""
import sys
import time

import numpy as np

sys.path.insert(0, ".")
from nvfp4rt import driver, reference  # noqa: E402
from nvfp4rt.bench import time_op  # noqa: E402
from nvfp4rt.bench_grouped_gemm import GroupedGemmBench  # noqa: E402
from nvfp4rt.ops import gemm_wgmma_cluster as CL  # noqa: E402
from nvfp4rt.ops import grouped_gemm as GG  # noqa: E402
from nvfp4rt.ops import grouped_gemm_mtiles as GM  # noqa: E402

PF = "    @!%p_x bra C_PREFETCHED;"
NOPF = "    bra.uni C_PREFETCHED;"
_orig = CL.kernel_text
VARIANT = ["tma"]


def patched(cons):
    text = _orig(cons)
    if VARIANT[0] == "nopf":
        assert text.count(PF) == 1
        text = text.replace(PF, NOPF)
    return text


CL.kernel_text = patched


def plan(st, layouts, variant):
    VARIANT[0] = variant
    CL._kernel.cache_clear()
    p = GM.GroupedGemmMTilePlan(st.shapes, layouts, tma_store=variant != "copy")
    outs = p(st.views)
    driver.call("cuCtxSynchronize")
    VARIANT[0] = "tma"
    CL._kernel.cache_clear()
    return p, outs


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
        bits = []
        for variant in ("tma", "nopf", "copy"):
            p, outs = plan(st, layouts, variant)
            ok = all(reference.check(o.numpy(), r).ok for o, r in zip(outs, refs))
            bits.append([o.numpy().view(np.uint16).copy() for o in outs])
            print(f"case {case} {variant}: {p!r} c maps {sum(m is not None for m in p._c_maps)}/{len(p.tiles)}, "
                  f"reference ok {ok}", flush=True)
            runs.append((f"case {case} {variant:4s}", p, st))
        same = all(np.array_equal(a, b) for bb in bits[1:] for a, b in zip(bits[0], bb))
        print(f"case {case}: bits equal {same}", flush=True)
    for rnd in range(rounds):
        for label, p, st in runs:
            t = time_op(lambda p=p, s=st: p(s.views))
            print(f"round {rnd}: {label} whole {t.median_us:7.2f} (p10 {t.p10_us:7.2f}, p90 {t.p90_us:7.2f})",
                  flush=True)
    print("done", time.strftime("%H:%M:%S"))


if __name__ == "__main__":
    main()
