"""Session 32, device run 5: does the N = 128 loop slow down when 128 accumulators are live beside it?

probe4: every build that holds an N > 128 loop runs the 128-row unit at 1576-1681 ns (T: 1276, the N = 128 loop alone:
1381), with the same SASS in the loop as the fast builds; only the registers differ (the slow builds' A fragments sit
at R152 and up, the fast ones' at R88).  G1L is G1 (the N = 128 loop alone) with accumulators 64..127 defined before
the segment loop, so that they are live through it (the post-loop code reads them), as in the builds with an N = 256
loop.  Rendered texts are in .scratch/s32/ (probe3 --offline; G1L by adding the moves).  Kernel alone at k = 8192 and
4096 on one group of M rows (environment, default 128), n = 7168 (best of 3 medians of 40, three rounds); bits compared with G1."""
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, "tools")
sys.path.insert(0, "docs/device-logs/2026-11-22-session27/scripts")
from hang_watchdog import Watchdog  # noqa: E402
import nvfp4rt  # noqa: E402
from nvfp4rt import driver  # noqa: E402
from nvfp4rt.bench import time_op  # noqa: E402
from nvfp4rt.module import load  # noqa: E402
from nvfp4rt.ops import grouped_gemm as GG  # noqa: E402
from nvfp4rt.ops import grouped_gemm_cluster as GC  # noqa: E402
import exp1h as H  # noqa: E402

import os
M, N, KS = int(os.environ.get("M", 128)), 7168, (8192, 4096)
NAMES = sys.argv[1:] or ["G1", "G1L"]
wd = Watchdog(200)
keep = []
print(nvfp4rt.device().properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), f"m = {M}", flush=True)


def best(f, n=3, iters=40):
    wd.arm("timing")
    r = min(time_op(f, iters=iters).median_us for _ in range(n))
    wd.disarm()
    return r


plans = {}
for k in KS:
    d, args, c = H.gemm_args(M, N, k, 1, "competition")
    ref = None
    for name in ["G8"] + NAMES:
        p = GC.GroupedGemmClusterPlan([(M, N, k)], [GG._raw_groups([args])[0][3]], clusters=28)
        if name != "G8":
            mod = load(Path(f".scratch/s32/{name}.ptx").read_text(), target="sm_90a")
            kern = mod.kernel(GC._ENTRY)
            kern.set_max_dynamic_shared(p.shared_mem)
            p.kernel, p._launch, p._repeat = kern, None, None
            keep.append(mod)
        c.fill(np.nan)
        wd.arm(f"{name} k={k}"); p([args]); driver.call("cuCtxSynchronize"); wd.disarm()
        out = c.numpy().copy()
        ref = out if ref is None else ref
        same = np.array_equal(out.view(np.uint16), ref.view(np.uint16))
        print(f"  k={k} {name}: bits {'equal to G8' if same else 'DIFFER from G8'}", flush=True)
        plans[(name, k)] = p
    keep.append((d, args, c))  # the plans hold raw pointers: keep their arrays alive
times = {key: [] for key in plans}
for _ in range(3):
    for key, p in plans.items():
        times[key].append(best(lambda p=p: p._launch.launch()))
for name in ["G8"] + NAMES:
    t1, t2 = min(times[(name, KS[0])]), min(times[(name, KS[1])])
    slope = (t1 - t2) / ((KS[0] - KS[1]) // 256)
    print(f"{name:5s} k={KS[0]}: {t1:7.2f} (rounds " + " ".join(f"{t:.2f}" for t in times[(name, KS[0])])
          + f")  k={KS[1]}: {t2:7.2f}  per unit {slope * 1000:7.1f} ns  fixed {t1 - slope * KS[0] // 256:6.2f} us",
          flush=True)
print("done", time.strftime("%H:%M:%S"), flush=True)
