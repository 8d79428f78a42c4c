"""Session 24, device run C: the exact composite probes (comp: B words a piece earlier + early afull tests + 64-bit
descriptors; comp_a27: plus the decode of pieces 2..7 above their wait) on the grouped m-tile build (cases 3, 1), the
dual tiles (256x3072x4096, 256x4096x7168) and the GEMM (128x7168x16384): results checked, then kernel alone and whole
call, best of 3 medians of 40, L2 cleared, two interleaved rounds."""
import sys, time
import numpy as np
sys.path.insert(0, "tools"); sys.path.insert(0, ".scratch/s24")
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
import probes24
from probes import PROBES

wd = Watchdog(120)
H.wd = wd
print(nvfp4rt.device().properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)
TEXT = open("ptx/gemm_nvfp4_wgmma_cluster.ptx").read()
keep = []
NAMES = sys.argv[1:] or ["comp", "comp_a27"]


def best(f, n=3, iters=40):
    wd.arm("timing")
    r = min(time_op(f, iters=iters).median_us for _ in range(n))
    wd.disarm()
    return r


def swap(p, nm):
    base_text = render(TEXT, "sm_90a", p.constants)
    mod = load(PROBES[nm](base_text), target="sm_90a")
    kern = mod.kernel(G._ENTRY)
    kern.set_max_dynamic_shared(p.shared_mem)
    p.kernel, p._launch, p._repeat = kern, None, None
    if hasattr(p, "_launched_maps"):
        p._launched_maps = {}
    keep.append((mod, p))
    return p


def report(title, plans, call):
    for nm, p in plans.items():
        wd.arm(nm); call(p); driver.call("cuCtxSynchronize"); wd.disarm()
    res = {nm: [] for nm in plans}
    for _ in range(2):
        for nm, p in plans.items():
            res[nm].append((best(lambda p=p: p._launch.launch()), best(lambda p=p: call(p))))
    print(title, flush=True)
    for nm in plans:
        print(f"  {nm:9s} kernel alone " + "  ".join(f"{a:.2f}" for a, _ in res[nm]) +
              "   whole call " + "  ".join(f"{b:.2f}" for _, b in res[nm]), flush=True)


# grouped m-tile cases 3 and 1
from nvfp4rt.bench_grouped_gemm import GroupedGemmBench
from nvfp4rt.ops import grouped_gemm as GG
for case in (3, 1):
    gb = GroupedGemmBench()
    st = gb.make_inputs({"case": case}, np.random.default_rng())
    layouts = [GG._raw_groups([v])[0][3] for v in st.views]
    plans = {"base": GG.plan_grouped_gemm(st.shapes, layouts=layouts)}
    for nm in NAMES:
        p = swap(GG.plan_grouped_gemm(st.shapes, layouts=layouts), nm)
        gb.run = lambda state, p=p: p(state.views)
        try:
            gb.check(st); print(f"  grouped case {case} {nm} check OK", flush=True)
        except Exception as e:
            print(f"  grouped case {case} {nm} check FAIL {e}", flush=True); H.FAILS.append((case, nm))
        plans[nm] = p
    report(f"grouped case {case} {plans['base']!r}", plans, lambda p: p(st.views))

for (m, n, k) in [(256, 3072, 4096), (256, 4096, 7168)]:
    plans = {"base": DualGemmTilesPlan(m, n, k, 1)}
    for nm in NAMES:
        plans[nm] = swap(DualGemmTilesPlan(m, n, k, 1), nm)
        H.check_dual(plans[nm], m, n, k, 1, f"{nm} dual {m}x{n}x{k}")
    d, args, c = H.dual_args(m, n, k, 1, "competition")
    report(f"dual {m}x{n}x{k} {plans['base']!r}", plans, lambda p: p(*args))

for (m, n, k) in [(128, 7168, 16384)]:
    plans = {"base": GemmClusterPlan(m, n, k, 1)}
    for nm in NAMES:
        plans[nm] = swap(GemmClusterPlan(m, n, k, 1), nm)
        H.check_gemm(plans[nm], m, n, k, 1, f"{nm} {m}x{n}x{k}")
    d, args, c = H.gemm_args(m, n, k, 1, "competition")
    report(f"gemm {m}x{n}x{k} {plans['base']!r}", plans, lambda p: p(*args))
print("FAILS", H.FAILS)
print("done", time.strftime("%H:%M:%S"), flush=True)
