"""Session 31: the m-tile plan's rings on grouped cases 4 and 3 (whole tiles, clusters of 1), an existing plan knob.
Each (B stages, a16 buffers) build runs on the bench's inputs with c poisoned and must give the default build's bits,
then the whole call is timed: best of 3 medians of 40, L2 cleared, 3 interleaved rounds."""
import sys
import time

import numpy as np

sys.path.insert(0, ".")
from nvfp4rt import driver  # noqa: E402
from nvfp4rt.bench import time_op  # noqa: E402
from nvfp4rt.bench_grouped_gemm import GroupedGemmBench  # noqa: E402
from nvfp4rt.ops import grouped_gemm as GG  # noqa: E402
from nvfp4rt.ops.grouped_gemm_mtiles import GroupedGemmMTilePlan  # noqa: E402

print(driver.device().properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)
RINGS = [(2, 8), (3, 8), (4, 8), (3, 6), (4, 6), (2, 6), (3, 7)]
gb = GroupedGemmBench()
for case in (4, 3):
    st = gb.make_inputs({"case": case}, np.random.default_rng())
    layouts = [GG._raw_groups([v])[0][3] for v in st.views]
    plans = {}
    for r in RINGS:
        try:
            plans[r] = GroupedGemmMTilePlan(st.shapes, layouts, stages=r[0], a_bufs=r[1])
        except ValueError as exc:
            print(f"case {case} rings {r}: {exc}", flush=True)
    ref = None
    for r, p in plans.items():
        for g in st.dev:
            driver.call("cuMemsetD8", g["c"].ptr, 0xFF, g["c"].nbytes)
        p(st.views)
        driver.call("cuCtxSynchronize")
        got = np.concatenate([g["c"].numpy().view(np.uint16).ravel() for g in st.dev])
        if ref is None:
            ref = got
        print(f"case {case} rings {r} {p!r}: {'bits equal to (2, 8)' if np.array_equal(got, ref) else 'DIFFERENT'}",
              flush=True)
    res = {r: [] for r in plans}
    for rnd in range(3):
        for r, p in plans.items():
            res[r].append(min(time_op(lambda p=p: p(st.views), iters=40, warmup=5).median_us for _ in range(3)))
    for r in plans:
        print(f"case {case} rings {r}: " + " ".join(f"{x:.2f}" for x in res[r]) + f"  (median {np.median(res[r]):.2f})",
              flush=True)
print("done", time.strftime("%H:%M:%S"))
