"""Session 19, device run 11: why the bench's dual 256x4096x7168 (53.0 us) sits ~2 us above this session's own
whole-call timings of the same plan (50.8-51.1): the bench adapter's call vs the plan's, and the GPU's state right
after the fp16 ceiling's 8192^3 matmuls (the bench measures its first shape right after them).  Same method as
the bench (DriverTimer: L2 clear, 0.5 ms spin, events), median of 100."""
import sys, time, subprocess
import numpy as np
sys.path.insert(0, "tools")
import nvfp4rt
from nvfp4rt import driver
from nvfp4rt.bench import measure, DriverTimer, get_op
from nvfp4rt.ceilings import get_ceilings

dev = nvfp4rt.device()
print(dev.properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)
timer = DriverTimer(dev, None)


def clocks():
    r = subprocess.run(["nvidia-smi", "--query-gpu=clocks.sm,power.draw,temperature.gpu,clocks_throttle_reasons.active",
                        "--format=csv,noheader"], capture_output=True, text=True)
    return r.stdout.strip()


for opname, shape in (("dual_gemm", None), ("gemm", None)):
    adapter = get_op(opname)(dev, timer.stream)
    shapes = adapter.parse_shapes(None)[:1]
    st = adapter.make_inputs(shapes[0], np.random.default_rng(0))
    adapter.check(st)
    f = lambda: adapter.run(st)

    def t(tag):
        r = measure(f, timer, iters=100, warmup=10)
        print(f"{opname} {adapter.shape_label(shapes[0])} {tag}: median {r.median_us:.2f} p10 {r.p10_us:.2f}  [{clocks()}]",
              flush=True)

    t("cold")
    t("again")
    get_ceilings(dev, reuse=False, log=lambda s: None)
    t("right after the ceilings")
    t("again")
    time.sleep(3)
    t("after 3 s idle")
    adapter.release(st)
print("done", time.strftime("%H:%M:%S"), flush=True)
