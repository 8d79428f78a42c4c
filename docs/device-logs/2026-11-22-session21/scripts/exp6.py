"""Session 21, device run 8: does a CUDA graph of the plan's two launches (decode, then the GEMM with programmatic
dependent launch) shorten the whole call?  Whole call by direct launches vs one cuGraphLaunch of a stream capture of
the same call, against the GEMM alone, on one non-default stream.  Best of 3 medians of 40 (us), L2 cleared, two
rounds; the graph's output is checked."""
import sys, time
sys.path.insert(0, "tools"); sys.path.insert(0, ".scratch/s21")
import numpy as np
from hang_watchdog import Watchdog
import nvfp4rt
from nvfp4rt import driver, reference
from nvfp4rt.bench import time_op
from nvfp4rt.stream import Stream
from nvfp4rt.ops.gemm_wgmma_cluster import GemmClusterPlan
from nvfp4rt.ops.dual_gemm_tiles import DualGemmTilesPlan
import exp1h as H

wd = Watchdog(120)
H.wd = wd
print(nvfp4rt.device().properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)
s = Stream()
R = driver.raw


def best(f, n=3, iters=40):
    wd.arm("timing")
    r = min(time_op(f, stream=s, iters=iters).median_us for _ in range(n))
    wd.disarm()
    return r


for kind, (m, n, k) in [("gemm", (128, 7168, 16384)), ("gemm", (128, 7168, 2048)), ("gemm", (128, 4096, 7168)),
                        ("dual", (256, 4096, 7168)), ("dual", (512, 3072, 7168))]:
    d, args, c = (H.dual_args if kind == "dual" else H.gemm_args)(m, n, k, 1, "competition")
    p = (DualGemmTilesPlan if kind == "dual" else GemmClusterPlan)(m, n, k, 1)
    p(*args, stream=s)
    driver.call("cuStreamSynchronize", s.handle)
    driver.call("cuStreamBeginCapture", s.handle, R.CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_RELAXED)
    p(*args, stream=s)
    graph = driver.call("cuStreamEndCapture", s.handle)
    gexec = driver.call("cuGraphInstantiate", graph, 0)
    nodes = driver.call("cuGraphGetNodes", graph, 0)
    c.numpy()  # (sync)
    c_host = np.full(c.shape, np.nan, np.float16)
    driver.call("cuMemcpyHtoD", c.ptr, c_host.ctypes.data, c_host.nbytes)
    driver.call("cuGraphLaunch", gexec, s.handle)
    driver.call("cuStreamSynchronize", s.handle)
    if kind == "dual":
        ref = reference.dual_gemm_silu_ref(d.a, d.b1, d.b2, d.sfa, d.sfb1, d.sfb2)
    else:
        ref = reference.gemm_ref(d.a, d.b, d.sfa, d.sfb)
    res = reference.check(c.numpy().transpose(1, 2, 0), ref)
    print(f"  {kind} {m}x{n}x{k}: {p!r}; graph of {nodes[1] if isinstance(nodes, tuple) else nodes} nodes, "
          f"output {'OK' if res.ok else 'FAIL ' + str(res)}", flush=True)
    for rnd in range(2):
        direct = best(lambda: p(*args, stream=s))
        graphed = best(lambda: driver.call("cuGraphLaunch", gexec, s.handle))
        alone = best(lambda: p._launch.launch())
        print(f"    round {rnd}: direct {direct:.2f}, graph {graphed:.2f}, kernel alone {alone:.2f}", flush=True)
print("done", flush=True)
