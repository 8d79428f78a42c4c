"""Session 18: where grouped_gemm_raw's host time goes (cProfile of back-to-back calls, the bench's inputs)."""
import cProfile, pstats, io, time
import numpy as np
import nvfp4rt
from nvfp4rt import driver
from nvfp4rt.bench import time_back_to_back
from nvfp4rt.bench_grouped_gemm import GroupedGemmBench
from nvfp4rt.ops.grouped_gemm import grouped_gemm_raw

print(nvfp4rt.device().properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)
b = GroupedGemmBench()
for case in (4, 1):
    st = b.make_inputs({"case": case}, np.random.default_rng(1))
    f = lambda: grouped_gemm_raw(st.views, stream=st.stream)
    f(); driver.call("cuCtxSynchronize")
    print(f"case {case}: API {time_back_to_back(f, 50):.1f} us/call", flush=True)
    pr = cProfile.Profile()
    pr.enable()
    for _ in range(200):
        f()
    pr.disable()
    driver.call("cuCtxSynchronize")
    s = io.StringIO()
    pstats.Stats(pr, stream=s).sort_stats("tottime").print_stats(25)
    print(s.getvalue()[:6000], flush=True)
