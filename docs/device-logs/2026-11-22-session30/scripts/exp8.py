"""Session 30, device run 8: the B producer's L2 policy in the GEMM template where B is read by several m tiles
(grouped m-tile cases 1, 3, 4; the dual tiles) and, as a control, where it is read once (128x7168x16384): evict_first
(committed) against evict_normal and evict_unchanged.  Whole call, L2 cleared, best of 3 medians of 40, three
interleaved rounds; outputs compared bit for bit with the committed text."""
import sys, time
import numpy as np
sys.path.insert(0, "tools"); sys.path.insert(0, ".scratch/s30")
from hang_watchdog import Watchdog
import nvfp4rt
from nvfp4rt import driver
from nvfp4rt.bench import get_op
from nvfp4rt.ops import grouped_gemm as GG
from nvfp4rt.ops.gemm_wgmma_cluster import GemmClusterPlan
from nvfp4rt.ops.dual_gemm_tiles import DualGemmTilesPlan
from nvfp4rt.ops.grouped_gemm_mtiles import GroupedGemmMTilePlan
from nvfp4rt.ptxsource import render, ptx_dir
import exp1h as H
import s28h

wd = Watchdog(150)
H.wd = s28h.wd = wd
dev = nvfp4rt.device()
print(dev.properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)
TEXT = (ptx_dir() / "gemm_nvfp4_wgmma_cluster.ptx").read_text()
LINE = "createpolicy.fractional.L2::evict_first.b64 %pol_b, 1.0;"
assert TEXT.count(LINE) == 1
POLS = ("evict_normal", "evict_unchanged")
FAILS = []


def variant(p, pol):
    return s28h.swap(p, render(TEXT.replace(LINE, LINE.replace("evict_first", pol)), "sm_90a", p.constants))


def ab(name, make, call, outs):
    plans = {"first": make()}
    for pol in POLS:
        plans[pol] = variant(make(), pol)
    got = {}
    for nm, p in plans.items():
        outs(clear=True)
        driver.call("cuCtxSynchronize")
        wd.arm(nm); call(p); driver.call("cuCtxSynchronize"); wd.disarm()
        got[nm] = [o.copy() for o in outs()]
    for pol in POLS:
        same = all(np.array_equal(a.view(np.uint16), b.view(np.uint16)) for a, b in zip(got["first"], got[pol]))
        if not same:
            FAILS.append((name, pol))
        print(f"  {name}: {pol} bits {'equal' if same else 'DIFFER'}", flush=True)
    res = {nm: [] for nm in plans}
    for rnd in range(3):
        for nm, p in plans.items():
            res[nm].append(s28h.best(lambda p=p: call(p)))
    for nm in plans:
        print(f"  {name:26s} {nm:16s} whole " + " ".join(f"{a:.2f}" for a in res[nm]), flush=True)


bench = get_op("grouped_gemm")(device=dev)
for case in (1, 3, 4):
    state = bench.make_inputs({"case": case}, np.random.default_rng())
    layouts = [GG._raw_groups([vw])[0][3] for vw in state.views]

    def outs(clear=False, state=state):
        if clear:
            for arrs in state.dev:
                arrs["c"].fill(np.nan)
            return []
        return [arrs["c"].numpy() for arrs in state.dev]
    ab(f"grouped case {case}", lambda s=state, l=layouts: GroupedGemmMTilePlan(s.shapes, l), lambda p, s=state: p(s.views), outs)
for (m, n, k) in [(256, 4096, 7168), (512, 4096, 7168), (256, 3072, 4096), (512, 3072, 7168)]:
    d, args, c = H.dual_args(m, n, k, 1, "competition")

    def outs(clear=False, c=c):
        if clear:
            c.fill(np.nan)
            return []
        return [c.numpy()]
    ab(f"dual {m}x{n}x{k}", lambda m=m, n=n, k=k: DualGemmTilesPlan(m, n, k, 1), lambda p, a=args: p(*a), outs)
for (m, n, k) in [(128, 7168, 16384), (1408, 4096, 7168)]:
    d, args, c = H.gemm_args(m, n, k, 1, "competition")

    def outs(clear=False, c=c):
        if clear:
            c.fill(np.nan)
            return []
        return [c.numpy()]
    ab(f"gemm {m}x{n}x{k}", lambda m=m, n=n, k=k: GemmClusterPlan(m, n, k, 1), lambda p, a=args: p(*a), outs)
print("FAILS:", FAILS, "done", time.strftime("%H:%M:%S"), flush=True)
