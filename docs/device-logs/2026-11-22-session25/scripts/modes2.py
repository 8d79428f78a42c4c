"""Session 25 run H: the whole call's two modes, direct launches against one cuGraphLaunch of a stream capture of the
same call (session 21's exp6.py), in the orders that set the mode (modes.py): 12 time_ops in a row of each, and each
alternated with time_ops of the GEMM alone.  One non-default stream; medians of 40 (us), L2 cleared; graph outputs
compared bit for bit with the direct call's."""
import sys, time
import numpy as np
sys.path.insert(0, "tools"); sys.path.insert(0, ".scratch/s25")
from hang_watchdog import Watchdog
import nvfp4rt
from nvfp4rt import driver
from nvfp4rt.bench import time_op
from nvfp4rt.stream import Stream
from nvfp4rt.ops.gemm_wgmma_cluster import GemmClusterPlan
import exp1h as H

wd = Watchdog(300)
H.wd = wd
print(nvfp4rt.device().properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)
s = Stream()
R = driver.raw


def capture(call):
    call(); driver.call("cuStreamSynchronize", s.handle)
    driver.call("cuStreamBeginCapture", s.handle, R.CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_RELAXED)
    call()
    graph = driver.call("cuStreamEndCapture", s.handle)
    return driver.call("cuGraphInstantiate", graph, 0)


def seqs(name, direct, gexec, alone, outs):
    wd.arm(name)
    ref = [o.numpy().copy() for o in outs]
    for o in outs:
        o.fill(np.float16(np.nan))
    driver.call("cuCtxSynchronize")
    driver.call("cuGraphLaunch", gexec, s.handle); driver.call("cuStreamSynchronize", s.handle)
    same = all(np.array_equal(o.numpy().view(np.uint16), r.view(np.uint16)) for o, r in zip(outs, ref))
    graph = lambda: driver.call("cuGraphLaunch", gexec, s.handle)
    t = lambda f: time_op(f, stream=s, iters=40).median_us
    print(f"{name}: graph output bits equal {same}", flush=True)
    print("  direct x12:        " + " ".join(f"{t(direct):.2f}" for _ in range(12)), flush=True)
    print("  graph x12:         " + " ".join(f"{t(graph):.2f}" for _ in range(12)), flush=True)
    r = [(t(direct), t(alone)) for _ in range(8)]
    print("  direct / alone:    " + " ".join(f"{a:.2f}" for a, _ in r), flush=True)
    r = [(t(graph), t(alone)) for _ in range(8)]
    print("  graph / alone:     " + " ".join(f"{a:.2f}" for a, _ in r), flush=True)
    print("  alone x6:          " + " ".join(f"{t(alone):.2f}" for _ in range(6)), flush=True)
    wd.disarm()


for (m, n, k) in [(128, 7168, 2048), (128, 7168, 16384)]:
    d, args, c = H.gemm_args(m, n, k, 1, "competition")
    p = GemmClusterPlan(m, n, k, 1)
    direct = lambda: p(*args, stream=s)
    gexec = capture(direct)
    seqs(f"{m}x{n}x{k} {p!r}", direct, gexec, lambda: p._launch.launch(), [c])

from nvfp4rt.bench_grouped_gemm import GroupedGemmBench
from nvfp4rt.ops import grouped_gemm as GG
gb = GroupedGemmBench()
st = gb.make_inputs({"case": 3}, np.random.default_rng())
layouts = [GG._raw_groups([v])[0][3] for v in st.views]
p = GG.plan_grouped_gemm(st.shapes, layouts=layouts)
direct = lambda: p(st.views, stream=s)
gexec = capture(direct)
seqs(f"grouped case 3 {p!r}", direct, gexec, lambda: p._launch.launch(), [arrs["c"] for arrs in st.dev])
print("done", time.strftime("%H:%M:%S"), flush=True)
