"""Session 16: where the host time of one API call goes (cProfile over back-to-back calls, the bench's inputs)."""
import cProfile, pstats, io, time, sys
import numpy as np
import nvfp4rt
from nvfp4rt import driver
from nvfp4rt.bench import get_op, DriverTimer, time_back_to_back

dev = nvfp4rt.device()
print(dev.properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)
timer = DriverTimer(dev, None)
for op in ("gemm", "gemv", "grouped_gemm", "dual_gemm"):
    ad = get_op(op)(dev, timer.stream)
    shapes = ad.parse_shapes(None)
    sh = shapes[-1] if op != "grouped_gemm" else shapes[2]
    st = ad.make_inputs(sh, np.random.default_rng(0))
    ad.run(st); driver.call("cuCtxSynchronize")
    api = time_back_to_back(lambda: ad.run(st), 200, synchronize=timer.synchronize)
    N = 300
    pr = cProfile.Profile()
    driver.call("cuCtxSynchronize")
    t0 = time.perf_counter()
    pr.enable()
    for _ in range(N):
        ad.run(st)
    pr.disable()
    host = (time.perf_counter() - t0) * 1e6 / N
    driver.call("cuCtxSynchronize")
    s = io.StringIO()
    pstats.Stats(pr, stream=s).sort_stats("tottime").print_stats(22)
    print(f"==== {op} {ad.shape_label(sh)}: API {api:.1f} us/call back to back; host {host:.1f} us/call under cProfile")
    print("\n".join(s.getvalue().splitlines()[:45]), flush=True)
