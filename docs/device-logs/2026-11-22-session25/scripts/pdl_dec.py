"""Session 25 run I: the decode prepass launched with programmatic dependent launch itself (the kernel already executes
griddepcontrol.wait before touching memory, so it may be), so that it is launched as the previous kernel on the stream
(the timer's spin here, a previous call's GEMM in a program) ends instead of after its completion and flush.  Whole
calls, committed kernels; base and variant time_ops alternated 8 times (both are whole calls, so both see the same
stream history); outputs compared bit for bit."""
import sys, time
import numpy as np
sys.path.insert(0, "tools"); sys.path.insert(0, ".scratch/s25")
from hang_watchdog import Watchdog
import nvfp4rt
from nvfp4rt import driver
from nvfp4rt.bench import time_op
from nvfp4rt.launch import _build_config
from nvfp4rt.ops.gemm_wgmma_cluster import GemmClusterPlan
from nvfp4rt.ops.dual_gemm_tiles import DualGemmTilesPlan
import exp1h as H

wd = Watchdog(300)
H.wd = wd
print(nvfp4rt.device().properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)


def pdl(p, call):
    wd.arm("prep"); call(); driver.call("cuCtxSynchronize"); wd.disarm()
    dl = p._decode._launch
    dl._config = _build_config(dl.kernel, dl.geometry, dl.shared_mem, dl._stream_handle, True)


def ab(name, base_call, var_call, outs):
    wd.arm(name)
    ref = [o.numpy().copy() for o in outs]
    for o in outs:
        o.fill(np.float16(np.nan))
    driver.call("cuCtxSynchronize")
    var_call(); driver.call("cuCtxSynchronize")
    same = all(np.array_equal(o.numpy().view(np.uint16), r.view(np.uint16)) for o, r in zip(outs, ref))
    r = [(time_op(base_call, iters=40).median_us, time_op(var_call, iters=40).median_us) for _ in range(8)]
    print(f"{name}: bits equal {same}\n  base:        " + " ".join(f"{a:.2f}" for a, _ in r) +
          f"  (median {np.median([a for a, _ in r]):.2f})\n  decode PDL:  " + " ".join(f"{b:.2f}" for _, b in r) +
          f"  (median {np.median([b for _, b in r]):.2f})", flush=True)
    wd.disarm()


for kind, (m, n, k) in [("gemm", (128, 7168, 16384)), ("gemm", (128, 4096, 7168)), ("gemm", (128, 7168, 2048)),
                        ("dual", (256, 3072, 4096)), ("dual", (256, 4096, 7168))]:
    d, args, c = (H.dual_args if kind == "dual" else H.gemm_args)(m, n, k, 1, "competition")
    P = DualGemmTilesPlan if kind == "dual" else GemmClusterPlan
    base, var = P(m, n, k, 1), P(m, n, k, 1)
    wd.arm("b"); base(*args); driver.call("cuCtxSynchronize"); wd.disarm()
    if not hasattr(var, "_decode"):
        print(kind, m, n, k, "no decode", var); continue
    pdl(var, lambda: var(*args))
    ab(f"{kind} {m}x{n}x{k} {base!r}", lambda: base(*args), lambda: var(*args), [c])

from nvfp4rt.bench_grouped_gemm import GroupedGemmBench
from nvfp4rt.ops import grouped_gemm as GG
from nvfp4rt.ops.grouped_gemm_mtiles import GroupedGemmMTilePlan
gb = GroupedGemmBench()
for case in (3, 1):
    st = gb.make_inputs({"case": case}, np.random.default_rng())
    layouts = [GG._raw_groups([v])[0][3] for v in st.views]
    base = GG.plan_grouped_gemm(st.shapes, layouts=layouts)
    var = type(base)(list(st.shapes), list(layouts))
    wd.arm("b"); base(st.views); driver.call("cuCtxSynchronize"); wd.disarm()
    if not hasattr(var, "_decode"):
        print("case", case, "no decode", var); continue
    pdl(var, lambda: var(st.views))
    ab(f"grouped case {case} {base!r}", lambda: base(st.views), lambda: var(st.views), [a["c"] for a in st.dev])
print("done", time.strftime("%H:%M:%S"), flush=True)
