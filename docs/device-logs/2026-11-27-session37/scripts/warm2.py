"""Session 37, device run 6: the committed L2 warm-up of the GEMM's tables against the same plan without it.

For each competition case, two fresh plans of the variant the op layer picks (m tiles for 1, 3, 4; the cluster
kernel for 2): the committed one (the decode lists the GEMM's tables) and one whose list is emptied before its first
call (the decode as before).  Outputs compared bit for bit.  Whole call in both of its modes (one untimed call
between two medians of 100 flips it, run 3), L2 cleared; three interleaved rounds."""
import sys
import time

import numpy as np

sys.path.insert(0, ".")
from nvfp4rt import driver, reference  # noqa: E402
from nvfp4rt.bench import time_op  # noqa: E402
from nvfp4rt.bench_grouped_gemm import GroupedGemmBench  # noqa: E402
from nvfp4rt.ops import grouped_gemm as GG  # noqa: E402
from nvfp4rt.ops import grouped_gemm_cluster as GC  # noqa: E402
from nvfp4rt.ops import grouped_gemm_mtiles as GM  # noqa: E402


def main():
    print(driver.device().properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)
    gb = GroupedGemmBench()
    runs = []
    for case in [int(c) for c in sys.argv[1:]] or (3, 4, 2, 1):
        st = gb.make_inputs({"case": case}, np.random.default_rng())
        layouts = [GG._raw_groups([v])[0][3] for v in st.views]
        cls = GM.GroupedGemmMTilePlan if GG.variant_for(st.shapes) == "wgmma_mtiles" else GC.GroupedGemmClusterPlan
        bits = []
        for name in ("warm", "nowarm"):
            p = cls(st.shapes, layouts)
            if name == "nowarm":
                p._l2_warm = ()
            outs = p(st.views)
            driver.call("cuCtxSynchronize")
            bits.append([np.asarray(o.numpy()).view(np.uint16).copy() for o in outs])
            if name == "warm":
                refs = reference.grouped_gemm_ref(st.host.groups)
                ok = all(reference.check(o.numpy(), r).ok for o, r in zip(outs, refs))
                print(f"case {case} {p!r} regions {p._l2_warm} vs the float64 reference: {ok}", flush=True)
            runs.append((f"case {case} {name}", p, st))
        print(f"case {case} bits equal: {all(np.array_equal(a, b) for a, b in zip(*bits))}", flush=True)
    for rnd in range(3):
        for label, p, st in runs:
            whole = lambda p=p, s=st: p(s.views)  # noqa: E731
            ta = time_op(whole).median_us
            whole()
            tb = time_op(whole).median_us
            whole()
            print(f"round {rnd}: {label:16s} whole, two modes {min(ta, tb):.2f} / {max(ta, tb):.2f} us", flush=True)
    print("done", time.strftime("%H:%M:%S"))


if __name__ == "__main__":
    main()
