"""Session 25 probe A: can the GEMM's CTAs enter beside the decode prepass's CTAs?
The decode prepass normally runs 8 CTAs of 256 threads per SM (all 65536 registers), so the GEMM (PDL secondary) enters
an SM only once its decode CTAs leave.  Here the decode grid is cut to 1-2 CTAs per SM; the K-split GEMM builds use
119 registers (room beside two decode CTAs); the grouped whole-tile build (168) is also tried launched at a 128-register
cap with setmaxnreg (producers 40, consumers 168).  Every variant is exact: outputs compared bit for bit with the
committed plan's on the same inputs.  Best of 3 medians of 40, L2 cleared, 3 interleaved rounds."""
import sys, time
import numpy as np
sys.path.insert(0, "tools"); sys.path.insert(0, ".scratch/s25")
from hang_watchdog import Watchdog
import nvfp4rt
from nvfp4rt import driver
from nvfp4rt.bench import time_op
from nvfp4rt.module import load
from nvfp4rt.ops import gemm_wgmma_cluster as G
from nvfp4rt.ops.gemm_wgmma_cluster import GemmClusterPlan
from nvfp4rt.ptxsource import render
import exp1h as H

wd = Watchdog(120)
H.wd = wd
dev = nvfp4rt.device()
print(dev.properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)
TEXT = open("ptx/gemm_nvfp4_wgmma_cluster.ptx").read()
keep = []


def capped(consts, cap):
    t = render(TEXT, "sm_90a", consts)
    t = t.replace(".minnctapersm 1\n", f".minnctapersm 1\n.maxnreg {cap}\n", 1)
    old = "    setp.lt.u32 %p_lead, %thread, 128;\n    @%p_lead bra PRODUCERS;\n"
    assert t.count(old) == 1
    t = t.replace(old, old + "    setmaxnreg.inc.sync.aligned.u32 168;\n", 1)
    assert t.count("PRODUCERS:\n") == 1
    return t.replace("PRODUCERS:\n", "PRODUCERS:\n    setmaxnreg.dec.sync.aligned.u32 40;\n", 1)


def swap_kernel(p, text):
    mod = load(text, target="sm_90a")
    kern = mod.kernel(G._ENTRY)
    kern.set_max_dynamic_shared(p.shared_mem)
    keep.append(mod)
    print("   regs", kern.attributes().registers, flush=True)
    p.kernel, p._launch, p._repeat = kern, None, None
    if hasattr(p, "_launched_maps"):
        p._launched_maps = {}


def set_grid(p, grid):
    p._decode.grid = grid
    p._decode._launch = None
    p._launch, p._repeat = None, None
    if hasattr(p, "_launched_maps"):
        p._launched_maps = {}


def best(f, n=3, iters=40):
    wd.arm("timing")
    r = min(time_op(f, iters=iters).median_us for _ in range(n))
    wd.disarm()
    return r


def rounds(fns, n=3):
    res = {nm: [] for nm in fns}
    for _ in range(n):
        for nm, f in fns.items():
            res[nm].append(best(f))
    for nm in fns:
        print(f"  {nm:22s} " + " ".join(f"{a:.2f}" for a in res[nm]) + f"  (median {np.median(res[nm]):.2f})", flush=True)


SM = dev.properties.sm_count
for (m, n, k) in [(128, 7168, 16384), (128, 7168, 2048), (128, 4096, 7168)]:
    d, args, c = H.gemm_args(m, n, k, 1, "competition")
    base = GemmClusterPlan(m, n, k, 1)
    wd.arm("base"); base(*args); driver.call("cuCtxSynchronize"); wd.disarm()
    ref = c.numpy().copy()
    fns = {"decode+gemm": lambda: base(*args), "gemm alone": lambda: base._launch.launch()}
    print(f"{m}x{n}x{k} {base!r} decode grid {base._decode.grid} regs {base.kernel.attributes().registers}", flush=True)
    for grid in (2 * SM, SM):
        p = GemmClusterPlan(m, n, k, 1)
        set_grid(p, grid)
        c.fill(np.float16(np.nan)); driver.call("cuCtxSynchronize")
        wd.arm("v"); p(*args); driver.call("cuCtxSynchronize"); wd.disarm()
        same = np.array_equal(c.numpy().view(np.uint16), ref.view(np.uint16))
        print(f"  grid {grid}: bits equal {same}", flush=True)
        keep.append(p)
        fns[f"decode{grid}+gemm"] = (lambda q: (lambda: q(*args)))(p)
    rounds(fns)

from nvfp4rt.bench_grouped_gemm import GroupedGemmBench
from nvfp4rt.ops import grouped_gemm as GG
from nvfp4rt.ops.grouped_gemm_mtiles import GroupedGemmMTilePlan
gb = GroupedGemmBench()
st = gb.make_inputs({"case": 3}, np.random.default_rng())
layouts = [GG._raw_groups([v])[0][3] for v in st.views]
base = GG.plan_grouped_gemm(st.shapes, layouts=layouts)
wd.arm("base"); base(st.views); driver.call("cuCtxSynchronize"); wd.disarm()
outs = [arrs["c"] for arrs in st.dev]
refs = [np.asarray(o.numpy()).copy() for o in outs]
print(f"grouped case 3 {base!r} decode grid {base._decode.grid} regs {base.kernel.attributes().registers}", flush=True)
fns = {"decode+gemm": lambda: base(st.views), "gemm alone": lambda: base._launch.launch()}
for cap, grid in [(None, 2 * SM), (128, None), (128, 2 * SM), (128, SM)]:
    p = GroupedGemmMTilePlan(list(st.shapes), list(layouts))
    for o in outs:
        o.fill(np.float16(np.nan))
    driver.call("cuCtxSynchronize")
    if cap:
        swap_kernel(p, capped(p.constants, cap))
    if grid:
        set_grid(p, grid)
    wd.arm("v"); p(st.views); driver.call("cuCtxSynchronize"); wd.disarm()
    same = all(np.array_equal(np.asarray(o.numpy()).view(np.uint16), r.view(np.uint16)) for o, r in zip(outs, refs))
    print(f"  cap {cap} grid {grid}: bits equal {same}", flush=True)
    keep.append(p)
    fns[f"cap{cap} decode{grid}"] = (lambda q: (lambda: q(st.views)))(p)
rounds(fns)
print("done", time.strftime("%H:%M:%S"), flush=True)
