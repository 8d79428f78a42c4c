"""Session 29, device run 3: the L2 policies committed to the template (B/sfb evict_first, A16 evict_last) against the
committed text before them (gemm_old.ptx), on every default competition path that runs the template; plus, on the GEMM,
the decode prepass's A16 stores with evict_last (dec_el, a probe).  Whole call (and kernel alone on the GEMM), L2
cleared, best of 3 medians of 40, interleaved rounds.  Results are checked on every plan used."""
import sys, time
import numpy as np
sys.path.insert(0, "tools"); sys.path.insert(0, ".scratch/s29")
from hang_watchdog import Watchdog
import nvfp4rt
from nvfp4rt import driver
from nvfp4rt.bench import get_op
from nvfp4rt.module import load
from nvfp4rt.ops import grouped_gemm as GG, decode_a16 as DA
from nvfp4rt.ops.gemm_wgmma_cluster import GemmClusterPlan
from nvfp4rt.ops.grouped_gemm_mtiles import GroupedGemmMTilePlan
from nvfp4rt.ops.dual_gemm_tiles import DualGemmTilesPlan
from nvfp4rt.ptxsource import render
from nvfp4rt.reference import check, gemm_ref
import exp1h as H
import s28h
import decpol

wd = Watchdog(150)
H.wd = s28h.wd = wd
dev = nvfp4rt.device()
print(dev.properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)
OLD = open(".scratch/s29/gemm_old.ptx").read()
DEC = render(open("ptx/nvfp4_decode_a16.ptx").read(), "sm_90a", {"NORMAL_OPERANDS": 0, "GROUPED": 0})


def old(p):
    return s28h.swap(p, render(OLD, "sm_90a", p.constants))


def dec_el(p):
    mod = load(decpol.dec_el(DEC), target="sm_90a")
    s28h.keep.append(mod)
    p._decode.kernel, p._decode._launch, p._repeat = mod.kernel(DA._ENTRY), None, None
    return p


for (m, n, k) in [(128, 7168, 16384), (128, 4096, 7168), (128, 7168, 2048)]:
    plans = {"old": old(GemmClusterPlan(m, n, k, 1)), "new": GemmClusterPlan(m, n, k, 1),
             "new+dec_el": dec_el(GemmClusterPlan(m, n, k, 1))}
    for nm, p in plans.items():
        H.check_gemm(p, m, n, k, 1, f"{m}x{n}x{k} {nm}", dists=("competition",) if k > 8192 else ("competition", "wide"))
    d, args, c = H.gemm_args(m, n, k, 1, "competition")
    for nm, p in plans.items():
        wd.arm(nm); p(*args); driver.call("cuCtxSynchronize"); wd.disarm()
    s28h.keep.append((plans, args, d, c))
    whole = {nm: [] for nm in plans}
    kern = {nm: [] for nm in plans}
    for rnd in range(4):
        for nm, p in plans.items():
            whole[nm].append(s28h.best(lambda p=p: p(*args)))
            if rnd < 2:
                kern[nm].append(s28h.best(lambda p=p: p._launch.launch()))
    print(f"{m}x{n}x{k} {plans['new']!r}", flush=True)
    for nm in plans:
        print(f"  {m}x{n}x{k} {nm:11s} whole " + " ".join(f"{a:.2f}" for a in whole[nm]) +
              "   kernel " + " ".join(f"{a:.2f}" for a in kern[nm]), flush=True)

for (m, n, k) in [(256, 4096, 7168), (512, 4096, 7168), (256, 3072, 4096), (512, 3072, 7168)]:
    plans = {"old": old(DualGemmTilesPlan(m, n, k, 1)), "new": DualGemmTilesPlan(m, n, k, 1)}
    for nm, p in plans.items():
        H.check_dual(p, m, n, k, 1, f"dual {m}x{n}x{k} {nm}")
    d, args, c = H.dual_args(m, n, k, 1, "competition")
    for nm, p in plans.items():
        wd.arm(nm); p(*args); driver.call("cuCtxSynchronize"); wd.disarm()
    s28h.keep.append((plans, args, d, c))
    res = {nm: [] for nm in plans}
    for rnd in range(3):
        for nm, p in plans.items():
            res[nm].append(s28h.best(lambda p=p: p(*args)))
    print(f"dual {m}x{n}x{k} {plans['new']!r}", flush=True)
    for nm in plans:
        print(f"  dual {m}x{n}x{k} {nm:4s} whole " + " ".join(f"{a:.2f}" for a in res[nm]), flush=True)

bench = get_op("grouped_gemm")(device=dev)
for case in (1, 2, 3, 4):
    state = bench.make_inputs({"case": case}, np.random.default_rng())
    v = GG.variant_for(state.shapes)
    print(f"case {case}: {len(state.shapes)} groups, variant {v}", flush=True)
    if v != "wgmma_mtiles":
        continue
    layouts = [GG._raw_groups([vw])[0][3] for vw in state.views]
    plans = {"old": old(GroupedGemmMTilePlan(state.shapes, layouts)), "new": GroupedGemmMTilePlan(state.shapes, layouts)}
    for nm, p in plans.items():
        for arrs in state.dev:
            arrs["c"].fill(np.nan)
        driver.call("cuCtxSynchronize")
        wd.arm(nm); p(state.views); driver.call("cuCtxSynchronize"); wd.disarm()
        ok = all(check(arrs["c"].numpy().transpose(1, 2, 0), gemm_ref(g.a, g.b, g.sfa, g.sfb)).ok
                 for arrs, g in zip(state.dev, state.host.groups))
        print(f"  case {case} {nm}: {'OK' if ok else 'FAIL'}", flush=True)
        if not ok:
            H.FAILS.append(f"case {case} {nm}")
    res = {nm: [] for nm in plans}
    for rnd in range(3):
        for nm, p in plans.items():
            res[nm].append(s28h.best(lambda p=p: p(state.views)))
    for nm in plans:
        print(f"  case {case} {nm:4s} whole " + " ".join(f"{a:.2f}" for a in res[nm]), flush=True)
    s28h.keep.append((plans, state))
print("FAILS:", H.FAILS, "done", time.strftime("%H:%M:%S"), flush=True)
