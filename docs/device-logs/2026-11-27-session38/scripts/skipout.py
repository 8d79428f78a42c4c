"""Session 38: what the m-tile GEMM's copy-out costs cases 4 and 3 (timing only: the 'nocopy' build skips the
copy-out, so its c is wrong).  The rendered template gets `bra.uni OUT_DONE` before its copy-out; the staging and the
barriers stay.  Whole calls, phases spread, medians of 100, four interleaved rounds; base checked against the float64
reference."""
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

ANCHOR = "    // ---- copy out: 128 rows x 16 chunks of 8 halves"
_orig = CL.kernel_text
SKIP = [False]


def patched(cons):
    text = _orig(cons)
    if SKIP[0]:
        assert text.count(ANCHOR) == 1
        text = text.replace(ANCHOR, "    bra.uni OUT_DONE;\n" + ANCHOR)
    return text


CL.kernel_text = patched


def plan(st, layouts, skip):
    SKIP[0] = skip
    CL._kernel.cache_clear()
    p = GM.GroupedGemmMTilePlan(st.shapes, layouts)
    p(st.views)
    driver.call("cuCtxSynchronize")
    SKIP[0] = False
    CL._kernel.cache_clear()
    return p


def main():
    print(driver.device().properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)
    gb = GroupedGemmBench()
    runs = []
    for case in (4, 3):
        st = gb.make_inputs({"case": case}, np.random.default_rng())
        layouts = [GG._raw_groups([v])[0][3] for v in st.views]
        base = plan(st, layouts, False)
        outs = base(st.views)
        refs = reference.grouped_gemm_ref(st.host.groups)
        print(f"case {case} base vs the float64 reference: "
              f"{all(reference.check(o.numpy(), r).ok for o, r in zip(outs, refs))}", flush=True)
        runs += [(f"case {case} base", base, st), (f"case {case} nocopy", plan(st, layouts, True), st)]
    for rnd in range(4):
        for label, p, st in runs:
            t = time_op(lambda p=p, s=st: p(s.views))
            print(f"round {rnd}: {label:14s} whole {t.median_us:6.2f} (p10 {t.p10_us:6.2f}, p90 {t.p90_us:6.2f})",
                  flush=True)
    print("done", time.strftime("%H:%M:%S"))


if __name__ == "__main__":
    main()
