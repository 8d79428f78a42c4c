"""Session 18: API time per call of the raw forms (back to back, bench inputs), after ArrayMeta is cached on the
arrays; and a cProfile of grouped case 4."""
import cProfile, pstats, io, time
import numpy as np
import nvfp4rt
from nvfp4rt import driver
from nvfp4rt.bench import time_back_to_back
from nvfp4rt.bench_grouped_gemm import GroupedGemmBench
from nvfp4rt.ops.grouped_gemm import grouped_gemm_raw

print(nvfp4rt.device().properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)
b = GroupedGemmBench()
for case in (1, 2, 3, 4):
    st = b.make_inputs({"case": case}, np.random.default_rng(1))
    f = lambda: grouped_gemm_raw(st.views, stream=st.stream)
    f(); driver.call("cuCtxSynchronize")
    api = [time_back_to_back(f, 50) for _ in range(5)]
    print(f"grouped case {case}: API {np.median(api):.1f} us/call (runs {' '.join(f'{x:.1f}' for x in api)})", flush=True)
    if case == 4:
        pr = cProfile.Profile()
        pr.enable()
        for _ in range(200):
            f()
        pr.disable()
        driver.call("cuCtxSynchronize")
        s = io.StringIO()
        pstats.Stats(pr, stream=s).sort_stats("tottime").print_stats(14)
        print(s.getvalue()[:3500], flush=True)
