"""Session 26: the producers' per-unit div.u32 removed (committed template) against the template at HEAD (old), on
the GEMM, dual (tiles) and grouped m-tile plans.  Each pair is checked bit for bit (same inputs, NaN-poisoned
output); then whole calls and kernel-alone launches in interleaved rounds (best of 3 medians of 40, L2 cleared)."""
import sys, time
import numpy as np
sys.path.insert(0, "tools"); sys.path.insert(0, ".scratch/s26")
from hang_watchdog import Watchdog
import nvfp4rt
from nvfp4rt import driver
from nvfp4rt.bench import time_op
from nvfp4rt.module import load
from nvfp4rt.ops import gemm_wgmma_cluster as G
from nvfp4rt.ops.gemm_wgmma_cluster import GemmClusterPlan
from nvfp4rt.ops.dual_gemm_tiles import DualGemmTilesPlan
from nvfp4rt.ptxsource import render
import exp1h as H

wd = Watchdog(120)
H.wd = wd
dev = nvfp4rt.device()
print(dev.properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)
OLD = open(".scratch/s26/old_cluster.ptx").read()
keep = []
WHAT = sys.argv[1:] or ["gemm", "dual", "grouped"]


def to_old(p):
    mod = load(render(OLD, "sm_90a", p.constants), target="sm_90a")
    kern = mod.kernel(G._ENTRY)
    kern.set_max_dynamic_shared(p.shared_mem)
    keep.append(mod)
    p.kernel, p._launch, p._repeat = kern, None, None
    if hasattr(p, "_launched_maps"):
        p._launched_maps = {}
    return p


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
        print(f"  {nm:16s} " + " ".join(f"{a:.2f}" for a in res[nm]) + f"  (median {np.median(res[nm]):.2f})", flush=True)


def same_bits(run, outs):
    got = []
    for p in run:
        for o in outs:
            o.fill(np.float16(np.nan))
        driver.call("cuCtxSynchronize")
        wd.arm("run"); p(); driver.call("cuCtxSynchronize"); wd.disarm()
        got.append([np.asarray(o.numpy()).copy() for o in outs])
    return all(np.array_equal(a.view(np.uint16), b.view(np.uint16)) for a, b in zip(*got))


if "gemm" in WHAT:
    for (m, n, k) in [(128, 7168, 16384), (128, 4096, 7168), (128, 7168, 2048)]:
        d, args, c = H.gemm_args(m, n, k, 1, "competition")
        new, old = GemmClusterPlan(m, n, k, 1), to_old(GemmClusterPlan(m, n, k, 1))
        eq = same_bits([lambda: new(*args), lambda: old(*args)], [c])
        keep.append((args, c, d))
        print(f"gemm {m}x{n}x{k} {new!r} bits equal {eq}", flush=True)
        rounds({"new whole": lambda: new(*args), "old whole": lambda: old(*args),
                "new kernel": lambda: new._launch.launch(), "old kernel": lambda: old._launch.launch()})

if "dual" in WHAT:
    for (m, n, k) in [(256, 4096, 7168), (512, 4096, 7168), (256, 3072, 4096), (512, 3072, 7168)]:
        d, args, c = H.dual_args(m, n, k, 1, "competition")
        new, old = DualGemmTilesPlan(m, n, k, 1), to_old(DualGemmTilesPlan(m, n, k, 1))
        eq = same_bits([lambda: new(*args), lambda: old(*args)], [c])
        keep.append((args, c, d))
        print(f"dual {m}x{n}x{k} {new!r} bits equal {eq}", flush=True)
        rounds({"new whole": lambda: new(*args), "old whole": lambda: old(*args),
                "new kernel": lambda: new._launch.launch(), "old kernel": lambda: old._launch.launch()})

if "grouped" in WHAT:
    from nvfp4rt.bench_grouped_gemm import GroupedGemmBench
    from nvfp4rt.ops import grouped_gemm as GG
    from nvfp4rt.ops.grouped_gemm_mtiles import GroupedGemmMTilePlan
    gb = GroupedGemmBench()
    for case in (1, 3, 4):
        st = gb.make_inputs({"case": case}, np.random.default_rng())
        layouts = [GG._raw_groups([v])[0][3] for v in st.views]
        new = GroupedGemmMTilePlan(list(st.shapes), list(layouts))
        old = to_old(GroupedGemmMTilePlan(list(st.shapes), list(layouts)))
        outs = [arrs["c"] for arrs in st.dev]
        eq = same_bits([lambda: new(st.views), lambda: old(st.views)], outs)
        keep.append(st)
        print(f"grouped case {case} {new!r} bits equal {eq}", flush=True)
        rounds({"new whole": lambda: new(st.views), "old whole": lambda: old(st.views),
                "new kernel": lambda: new._launch.launch(), "old kernel": lambda: old._launch.launch()})
print("done", time.strftime("%H:%M:%S"), flush=True)
