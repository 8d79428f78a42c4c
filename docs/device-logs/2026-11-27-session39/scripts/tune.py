"""Session 39 run 7: with the TMA-store epilogue, do stream-K cases 1 and 2 want other run cuts?  Plans built with
EPILOGUE_COST (the model's charge for a tile's last unit, 0.3 of a unit, fitted with the copy-out) at 0.3, 0.15 and 0,
and split_cost 2 (the default) or 3.  Same inputs; the float64 reference checked per plan.  Whole calls, phases
spread, medians of 100, ROUNDS interleaved rounds.  Usage: tune.py [ROUNDS] [CASES...]"""
import sys
import time

import numpy as np

sys.path.insert(0, ".")
from nvfp4rt import driver, reference  # noqa: E402
from nvfp4rt.bench import time_op  # noqa: E402
from nvfp4rt.bench_grouped_gemm import GroupedGemmBench  # noqa: E402
from nvfp4rt.ops import grouped_gemm as GG  # noqa: E402
from nvfp4rt.ops import grouped_gemm_mtiles as GM  # noqa: E402

VARIANTS = [(0.3, 2.0), (0.15, 2.0), (0.0, 2.0), (0.3, 3.0), (0.15, 3.0)]


def main():
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 4
    cases = [int(c) for c in sys.argv[2:]] or [1, 2]
    print(driver.device().properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)
    gb = GroupedGemmBench()
    runs = []
    default_epi = GM.EPILOGUE_COST
    for case in cases:
        st = gb.make_inputs({"case": case}, np.random.default_rng())
        layouts = [GG._raw_groups([v])[0][3] for v in st.views]
        refs = reference.grouped_gemm_ref(st.host.groups)
        for epi, split in VARIANTS:
            GM.EPILOGUE_COST = epi
            p = GM.GroupedGemmMTilePlan(st.shapes, layouts, split_cost=split)
            GM.EPILOGUE_COST = default_epi
            outs = p(st.views)
            driver.call("cuCtxSynchronize")
            ok = all(reference.check(o.numpy(), r).ok for o, r in zip(outs, refs))
            runs_len = np.diff(p.starts)
            print(f"case {case} epi {epi} split {split}: {p!r} runs {runs_len.min()}-{runs_len.max()} units, "
                  f"reference ok {ok}", flush=True)
            runs.append((f"case {case} epi {epi:4.2f} split {split}", p, st))
    for rnd in range(rounds):
        for label, p, st in runs:
            t = time_op(lambda p=p, s=st: p(s.views))
            print(f"round {rnd}: {label} whole {t.median_us:7.2f} (p10 {t.p10_us:7.2f}, p90 {t.p90_us:7.2f})",
                  flush=True)
    print("done", time.strftime("%H:%M:%S"))


if __name__ == "__main__":
    main()
