"""Session 29, device run 1: L2 cache policies on the cluster GEMM's TMA loads, and uniform spin-loop branches.
Probes (l2p.py, uni.py; exact by construction, checked on 128x7168x2048 in both distributions and on grouped case 1):
  ef  - B and sfb TMA loads with createpolicy.fractional.L2::evict_first (streamed once);
  el  - A16 TMA loads with evict_last (every tile of an m tile reads them);
  efl - both;  uni - bra.uni on the consumer loop's barrier branches;  efl_uni - all.
Whole call / kernel alone, L2 cleared, best of 3 medians of 40 (us), two interleaved rounds."""
import sys, time
import numpy as np
sys.path.insert(0, "tools"); sys.path.insert(0, ".scratch/s29")
from hang_watchdog import Watchdog
import nvfp4rt
from nvfp4rt import driver
from nvfp4rt.bench import get_op
from nvfp4rt.ops import grouped_gemm as GG
from nvfp4rt.ops.gemm_wgmma_cluster import GemmClusterPlan
from nvfp4rt.ops.grouped_gemm_mtiles import GroupedGemmMTilePlan
from nvfp4rt.ptxsource import render
from nvfp4rt.reference import check, gemm_ref
import exp1h as H
import s28h
import l2p, uni

wd = Watchdog(150)
H.wd = s28h.wd = wd
dev = nvfp4rt.device()
print(dev.properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)
TEXT = open("ptx/gemm_nvfp4_wgmma_cluster.ptx").read()
PROBES = {"base": lambda t: t, **l2p.PROBES, "uni": uni.uni, "efl_uni": lambda t: uni.uni(l2p.PROBES["efl"](t))}

# correctness of every probe on one GEMM shape
for nm, f in PROBES.items():
    base = GemmClusterPlan(128, 7168, 2048, 1)
    p = s28h.swap(GemmClusterPlan(128, 7168, 2048, 1), f(render(TEXT, "sm_90a", base.constants)))
    H.check_gemm(p, 128, 7168, 2048, 1, f"check {nm}")

results = {}
for (m, n, k) in [(128, 7168, 16384), (128, 4096, 7168), (128, 7168, 2048)]:
    d, args, c = H.gemm_args(m, n, k, 1, "competition")
    base = GemmClusterPlan(m, n, k, 1)
    bt = render(TEXT, "sm_90a", base.constants)
    plans = {nm: s28h.swap(GemmClusterPlan(m, n, k, 1), f(bt)) for nm, f in PROBES.items()}
    for nm, p in plans.items():
        wd.arm(nm); p(*args); driver.call("cuCtxSynchronize"); wd.disarm()
    s28h.keep.append((plans, args, d, c))
    res = {nm: [] for nm in plans}
    for rnd in range(2):
        for nm, p in plans.items():
            res[nm].append((s28h.best(lambda p=p: p(*args)), s28h.best(lambda p=p: p._launch.launch())))
    print(f"{m}x{n}x{k} {base!r}", flush=True)
    for nm in plans:
        print(f"  {m}x{n}x{k} {nm:8s} whole / kernel: " + "  ".join(f"{a:.2f} / {b:.2f}" for a, b in res[nm]), flush=True)

bench = get_op("grouped_gemm")(device=dev)
state = bench.make_inputs({"case": 1}, np.random.default_rng())
layouts = [GG._raw_groups([v])[0][3] for v in state.views]
base = GroupedGemmMTilePlan(state.shapes, layouts)
bt = render(TEXT, "sm_90a", base.constants)
plans = {nm: s28h.swap(GroupedGemmMTilePlan(state.shapes, layouts), f(bt)) for nm, f in PROBES.items()}
for nm, p in plans.items():
    for arrs in state.dev:
        arrs["c"].fill(np.nan)
    driver.call("cuCtxSynchronize")
    wd.arm(nm); p(state.views); driver.call("cuCtxSynchronize"); wd.disarm()
    ok = all(check(arrs["c"].numpy().transpose(1, 2, 0), gemm_ref(g.a, g.b, g.sfa, g.sfb)).ok
             for arrs, g in zip(state.dev, state.host.groups))
    print(f"case 1 {nm}: {'OK' if ok else 'FAIL'}", flush=True)
    if not ok:
        H.FAILS.append(f"case 1 {nm}")
res = {nm: [] for nm in plans}
for rnd in range(2):
    for nm, p in plans.items():
        res[nm].append((s28h.best(lambda p=p: p(state.views)), s28h.best(lambda p=p: p._launch.launch())))
for nm in plans:
    print(f"  case 1 {nm:8s} whole / kernel: " + "  ".join(f"{a:.2f} / {b:.2f}" for a, b in res[nm]), flush=True)
print("FAILS:", H.FAILS, "done", time.strftime("%H:%M:%S"), flush=True)
