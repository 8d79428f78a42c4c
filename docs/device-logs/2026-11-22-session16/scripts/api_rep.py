"""Session 16: the bench's API figure (50 back-to-back calls) repeated, to see its spread per op and shape."""
import time, gc
import numpy as np
import nvfp4rt
from nvfp4rt import driver
from nvfp4rt.bench import get_op, DriverTimer, time_back_to_back

dev = nvfp4rt.device()
print(dev.properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)
timer = DriverTimer(dev, None)
for op in ("gemm", "grouped_gemm", "dual_gemm", "gemv"):
    ad = get_op(op)(dev, timer.stream)
    for sh in ad.parse_shapes(None):
        st = ad.make_inputs(sh, np.random.default_rng(0))
        ad.run(st); driver.call("cuCtxSynchronize")
        reps = [time_back_to_back(lambda: ad.run(st), 50, synchronize=timer.synchronize) for _ in range(7)]
        gc.disable()
        nogc = [time_back_to_back(lambda: ad.run(st), 50, synchronize=timer.synchronize) for _ in range(3)]
        gc.enable()
        print(f"{op:13s} {ad.shape_label(sh):45s} API us/call x7: " + " ".join(f"{r:6.1f}" for r in reps)
              + "   gc off: " + " ".join(f"{r:6.1f}" for r in nogc), flush=True)
