"""Session 33, device run 2: the grouped cluster kernel's TMA-store epilogue against its copy-out, on the same build.
The same inputs, each group's c either 16-byte aligned (every tile stored by TMA) or placed 2 bytes past that (no c
map: the consumers' staging rounds and copy-out, the epilogue before this session).  Both outputs are compared bit for
bit and against the reference first.  Case 2 (the cluster kernel's competition case) and case 1 run on the cluster
plan.  Whole call and kernel alone, L2 cleared, best of 3 medians of 40, two interleaved rounds."""
import sys
import time

import numpy as np

sys.path.insert(0, "tools")
from hang_watchdog import Watchdog  # noqa: E402
import nvfp4rt  # noqa: E402
from nvfp4rt import driver, reference  # noqa: E402
from nvfp4rt.bench import get_op, time_op  # noqa: E402
from nvfp4rt.ops import grouped_gemm as GG  # noqa: E402
from nvfp4rt.ops import grouped_gemm_cluster as GC  # noqa: E402

wd = Watchdog(200)
print(driver.device().properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)
FAILS = []


class At:
    def __init__(self, ptr):
        self.ptr = ptr


def best(f):
    wd.arm("timing")
    r = min(time_op(f, iters=40, warmup=5).median_us for _ in range(3))
    wd.disarm()
    return r


bench = get_op("grouped_gemm")()
runs = {}
keep = []
for case in (2, 1):
    st = bench.make_inputs({"case": case}, np.random.default_rng())
    keep.append(st)
    layouts = [GG._raw_groups([v])[0][3] for v in st.views]
    outs = {}
    for name, shift in (("tma", 0), ("copy", 2)):
        p = GC.GroupedGemmClusterPlan(st.shapes, layouts)
        bufs, views = [], []
        for v, (m, n, _) in zip(st.views, st.shapes):
            buf = nvfp4rt.from_numpy(np.full(m * n + 16, np.nan, dtype=np.float16))
            bufs.append(buf)
            views.append(tuple(v[:4]) + (At(buf.ptr + 16 + shift),))
        keep.append(bufs)
        wd.arm(f"case {case} {name}"); p(views); driver.call("cuCtxSynchronize"); wd.disarm()
        got = [b.numpy()[(16 + shift) // 2:(16 + shift) // 2 + m * n].reshape(m, n) for b, (m, n, _) in zip(bufs, st.shapes)]
        outs[name] = got
        for i, (g, o) in enumerate(zip(st.host.groups, got)):
            res = reference.check(o[:, :, None], reference.gemm_ref(g.a, g.b, g.sfa, g.sfb))
            if not res.ok:
                FAILS.append(f"case {case} {name} group {i}")
                print(f"  case {case} {name} group {i}: FAIL {res.report()}", flush=True)
        runs[f"case {case} {name}"] = (p, views)
        print(f"  case {case} {name}: reference checked   {p!r}", flush=True)
    same = all(np.array_equal(a.view(np.uint16), b.view(np.uint16)) for a, b in zip(outs["tma"], outs["copy"]))
    print(f"  case {case}: tma and copy bits {'equal' if same else 'DIFFER'}", flush=True)
    if not same:
        FAILS.append(f"case {case} bits")
res = {name: [] for name in runs}
for rnd in range(2):
    for name, (p, views) in runs.items():
        res[name].append((best(lambda p=p, v=views: p(v)), best(lambda p=p: p._launch.launch())))
for name in runs:
    print(f"  {name:12s} whole " + " ".join(f"{w:7.2f}" for w, _ in res[name]) + "   kernel alone "
          + " ".join(f"{g:7.2f}" for _, g in res[name]), flush=True)
print("FAILS:", FAILS, "done", time.strftime("%H:%M:%S"), flush=True)
