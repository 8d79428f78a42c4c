"""Session 24, device run G (timing probe, results not checked): the GEMM launched first and the A decode second.
The GEMM executes griddepcontrol.launch_dependents at entry and its A16 producer does not wait (no griddepcontrol.wait,
no flags: it reads whatever A16 holds); the decode is launched after it with programmatic dependent launch and without
its own griddepcontrol.wait, so its CTAs can run on the SMs the GEMM leaves idle.  Compared: the committed whole call
(decode, then GEMM), the GEMM alone, and the inverse order; best of 3 medians of 40, L2 cleared, 3 interleaved rounds."""
import sys, time
import numpy as np
sys.path.insert(0, "tools"); sys.path.insert(0, ".scratch/s24")
from hang_watchdog import Watchdog
import nvfp4rt
from nvfp4rt import driver
from nvfp4rt.bench import time_op
from nvfp4rt.module import load
from nvfp4rt.ops import gemm_wgmma_cluster as G, decode_a16 as D
from nvfp4rt.ops.gemm_wgmma_cluster import GemmClusterPlan
from nvfp4rt.ptxsource import render
import exp1h as H
import warm

wd = Watchdog(120)
H.wd = wd
print(nvfp4rt.device().properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)
TEXT = open("ptx/gemm_nvfp4_wgmma_cluster.ptx").read()
keep = []
WAIT = "    griddepcontrol.wait;                      // the decode kernel is complete and A16 is visible (PDL)\n"
PARAMS = "    // ------------------------------------------------------------------ parameters\n"


def gemm_first_text(consts, wait_in_gemm=False):
    t = render(TEXT, "sm_90a", consts)
    assert t.count(WAIT) == 1 and t.count(PARAMS) == 1
    if not wait_in_gemm:
        t = t.replace(WAIT, "", 1)
    return t.replace(PARAMS, PARAMS + "    griddepcontrol.launch_dependents;\n", 1)


def decode_second_text(grouped):
    t = render(warm.TEXT, "sm_90a", {"NORMAL_OPERANDS": 0, "GROUPED": int(grouped)})
    old = "    griddepcontrol.wait;\n"
    assert t.count(old) == 1
    return t.replace(old, "", 1)


def best(f, n=3, iters=40):
    wd.arm("timing")
    r = min(time_op(f, iters=iters).median_us for _ in range(n))
    wd.disarm()
    return r


def inverse(p, grouped, call):
    """a second plan object whose GEMM is the launch_dependents build and whose decode is the PDL build"""
    mod = load(gemm_first_text(p.constants), target="sm_90a")
    kern = mod.kernel(G._ENTRY)
    kern.set_max_dynamic_shared(p.shared_mem)
    p.kernel, p._launch, p._repeat = kern, None, None
    if hasattr(p, "_launched_maps"):
        p._launched_maps = {}
    dmod = load(decode_second_text(grouped), target="sm_90a")
    p._decode.kernel, p._decode._launch = dmod.kernel(D._ENTRY), None
    keep.append((mod, dmod, p))
    wd.arm("prep"); call(p); driver.call("cuCtxSynchronize"); wd.disarm()   # prepares both launches
    from nvfp4rt.launch import _build_config
    dl2 = p._decode._launch
    dl2._config = _build_config(dl2.kernel, dl2.geometry, dl2.shared_mem, dl2._stream_handle, True)
    dl2.programmatic = True
    return p, dl2


def rounds(fns, n=3):
    res = {nm: [] for nm in fns}
    for _ in range(n):
        for nm, f in fns.items():
            res[nm].append(best(f))
    for nm in fns:
        print(f"  {nm:14s} " + " ".join(f"{a:.2f}" for a in res[nm]) + f"  (median {np.median(res[nm]):.2f})", flush=True)


for (m, n, k) in [(128, 7168, 16384), (128, 7168, 2048), (128, 4096, 7168)]:
    d, args, c = H.gemm_args(m, n, k, 1, "competition")
    base = GemmClusterPlan(m, n, k, 1)
    wd.arm("base"); base(*args); driver.call("cuCtxSynchronize"); wd.disarm()
    p, dl2 = inverse(GemmClusterPlan(m, n, k, 1), False, lambda q: q(*args))
    print(f"{m}x{n}x{k} {base!r}; decode programmatic launch: {dl2 is not None}", flush=True)
    fns = {"decode+gemm": lambda: base(*args), "gemm alone": lambda: base._launch.launch(),
           "gemm+decode": lambda: (p._launch.launch(), dl2.launch())}
    rounds(fns)

from nvfp4rt.bench_grouped_gemm import GroupedGemmBench
from nvfp4rt.ops import grouped_gemm as GG
gb = GroupedGemmBench()
st = gb.make_inputs({"case": 3}, np.random.default_rng())
layouts = [GG._raw_groups([v])[0][3] for v in st.views]
base = GG.plan_grouped_gemm(st.shapes, layouts=layouts)
wd.arm("base"); base(st.views); driver.call("cuCtxSynchronize"); wd.disarm()
p, dl2 = inverse(GG.plan_grouped_gemm(st.shapes, layouts=layouts), True, lambda q: q(st.views))
print(f"grouped case 3 {base!r}; decode programmatic launch: {dl2 is not None}", flush=True)
rounds({"decode+gemm": lambda: base(st.views), "gemm alone": lambda: base._launch.launch(),
        "gemm+decode": lambda: (p._launch.launch(), dl2.launch())})
print("done", time.strftime("%H:%M:%S"), flush=True)
