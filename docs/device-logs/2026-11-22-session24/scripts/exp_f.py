"""Session 24, device run F: the producers' first-request ordering probes (order.py; exact, results checked) against
the committed kernel: kernel alone and whole call, best of 3 medians of 40, L2 cleared, three interleaved rounds."""
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
import probes24, order
from probes import PROBES

wd = Watchdog(120)
H.wd = wd
print(nvfp4rt.device().properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)
TEXT = open("ptx/gemm_nvfp4_wgmma_cluster.ptx").read()
keep = []
NAMES = [a for a in sys.argv[1:] if not a.startswith("only=")]
ONLY = next((a[5:].split(",") for a in sys.argv[1:] if a.startswith("only=")), None)


def best(f, n=3, iters=40):
    wd.arm("timing")
    r = min(time_op(f, iters=iters).median_us for _ in range(n))
    wd.disarm()
    return r


def swap(p, nm):
    mod = load(PROBES[nm](render(TEXT, "sm_90a", p.constants)), target="sm_90a")
    kern = mod.kernel(G._ENTRY)
    kern.set_max_dynamic_shared(p.shared_mem)
    p.kernel, p._launch, p._repeat = kern, None, None
    if hasattr(p, "_launched_maps"):
        p._launched_maps = {}
    keep.append((mod, p))
    return p


def report(title, plans, call, rounds=3):
    for nm, p in plans.items():
        wd.arm(nm); call(p); driver.call("cuCtxSynchronize"); wd.disarm()
    res = {nm: [] for nm in plans}
    for _ in range(rounds):
        for nm, p in plans.items():
            res[nm].append((best(lambda p=p: p._launch.launch()), best(lambda p=p: call(p))))
    print(title, flush=True)
    for nm in plans:
        ka = [a for a, _ in res[nm]]; wc = [b for _, b in res[nm]]
        print(f"  {nm:10s} kernel alone " + " ".join(f"{a:.2f}" for a in ka) + f" (min {min(ka):.2f})   whole call "
              + " ".join(f"{b:.2f}" for b in wc) + f" (min {min(wc):.2f}, median {np.median(wc):.2f})", flush=True)


def want(tag):
    return ONLY is None or tag in ONLY


for tag, (m, n, k) in [("g1", (128, 7168, 16384)), ("g2", (128, 4096, 7168)), ("g3", (128, 7168, 2048))]:
    if not want(tag):
        continue
    plans = {"base": GemmClusterPlan(m, n, k, 1)}
    for nm in NAMES:
        plans[nm] = swap(GemmClusterPlan(m, n, k, 1), nm)
        H.check_gemm(plans[nm], m, n, k, 1, f"{nm} {m}x{n}x{k}")
    d, args, c = H.gemm_args(m, n, k, 1, "competition")
    report(f"gemm {m}x{n}x{k} {plans['base']!r}", plans, lambda p: p(*args))

from nvfp4rt.bench_grouped_gemm import GroupedGemmBench
from nvfp4rt.ops import grouped_gemm as GG
for case in (3, 1):
    if not want(f"c{case}"):
        continue
    gb = GroupedGemmBench()
    st = gb.make_inputs({"case": case}, np.random.default_rng())
    layouts = [GG._raw_groups([v])[0][3] for v in st.views]
    plans = {"base": GG.plan_grouped_gemm(st.shapes, layouts=layouts)}
    for nm in NAMES:
        p = swap(GG.plan_grouped_gemm(st.shapes, layouts=layouts), nm)
        gb.run = lambda state, p=p: p(state.views)
        try:
            gb.check(st); print(f"  grouped case {case} {nm}: OK", flush=True)
        except Exception as e:
            print(f"  grouped case {case} {nm}: FAIL {e}", flush=True); H.FAILS.append((case, nm))
        plans[nm] = p
    report(f"grouped case {case} {plans['base']!r}", plans, lambda p: p(st.views))

for tag, (m, n, k) in [("d3", (256, 3072, 4096)), ("d1", (256, 4096, 7168))]:
    if not want(tag):
        continue
    plans = {"base": DualGemmTilesPlan(m, n, k, 1)}
    for nm in NAMES:
        plans[nm] = swap(DualGemmTilesPlan(m, n, k, 1), nm)
        H.check_dual(plans[nm], m, n, k, 1, f"{nm} dual {m}x{n}x{k}")
    d, args, c = H.dual_args(m, n, k, 1, "competition")
    report(f"dual {m}x{n}x{k} {plans['base']!r}", plans, lambda p: p(*args))
print("FAILS", H.FAILS)
print("done", time.strftime("%H:%M:%S"), flush=True)
