"""Session 29, device run 2: which L2 policy pays in the whole call.  Run 1 found evict_first on B speeding the K split's
kernel alone by 1.6-1.9 us on 128x7168x16384 but slowing its whole call (decode + GEMM under PDL) by 0.5-1.1 us on
all three shapes, and evict_last on A16 helping the whole call by 0.2-0.6.  Variants (all with el unless named):
  base, el, el+ef, el+efb (B only), el+efs (sfb only), el+ef_lap (no hint on the producer's first 3 loads),
  el+ef_bwait (the B producer also waits for the decode grid), bwait (base + that wait: timing only).
Whole call 4 interleaved rounds, kernel alone 2; best of 3 medians of 40, L2 cleared.  Then grouped case 1 and the
dual tiles (256x4096x7168, 256x3072x4096): base against el (checked)."""
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
from nvfp4rt.ops.dual_gemm_tiles import DualGemmTilesPlan
from nvfp4rt.ptxsource import render
from nvfp4rt.reference import check, gemm_ref
import exp1h as H
import s28h
import l2p

wd = Watchdog(150)
H.wd = s28h.wd = wd
dev = nvfp4rt.device()
print(dev.properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)
TEXT = open("ptx/gemm_nvfp4_wgmma_cluster.ptx").read()
P = l2p.PROBES
el = P["el"]
PROBES = {"base": lambda t: t, "el": el, "el+ef": lambda t: el(P["ef"](t)), "el+efb": lambda t: el(P["efb"](t)),
          "el+efs": lambda t: el(P["efs"](t)), "el+ef_lap": lambda t: el(P["ef_lap"](t)),
          "el+ef_bwait": lambda t: el(P["ef_bwait"](t)), "bwait": P["bwait"]}
for nm in ("el+efb", "el+efs", "el+ef_lap"):
    base = GemmClusterPlan(128, 7168, 2048, 1)
    p = s28h.swap(GemmClusterPlan(128, 7168, 2048, 1), PROBES[nm](render(TEXT, "sm_90a", base.constants)))
    H.check_gemm(p, 128, 7168, 2048, 1, f"check {nm}")

for (m, n, k) in [(128, 7168, 16384), (128, 4096, 7168), (128, 7168, 2048)]:
    d, args, c = H.gemm_args(m, n, k, 1, "competition")
    base = GemmClusterPlan(m, n, k, 1)
    bt = render(TEXT, "sm_90a", base.constants)
    plans = {nm: s28h.swap(GemmClusterPlan(m, n, k, 1), f(bt)) for nm, f in PROBES.items()}
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
    print(f"{m}x{n}x{k} {base!r}", flush=True)
    for nm in plans:
        print(f"  {m}x{n}x{k} {nm:12s} whole " + " ".join(f"{a:.2f}" for a in whole[nm]) +
              "   kernel " + " ".join(f"{a:.2f}" for a in kern[nm]), flush=True)

bench = get_op("grouped_gemm")(device=dev)
state = bench.make_inputs({"case": 1}, np.random.default_rng())
layouts = [GG._raw_groups([v])[0][3] for v in state.views]
base = GroupedGemmMTilePlan(state.shapes, layouts)
bt = render(TEXT, "sm_90a", base.constants)
plans = {nm: s28h.swap(GroupedGemmMTilePlan(state.shapes, layouts), PROBES[nm](bt)) for nm in ("base", "el")}
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
for rnd in range(3):
    for nm, p in plans.items():
        res[nm].append(s28h.best(lambda p=p: p(state.views)))
for nm in plans:
    print(f"  case 1 {nm:6s} whole " + " ".join(f"{a:.2f}" for a in res[nm]), flush=True)

for (m, n, k) in [(256, 4096, 7168), (256, 3072, 4096)]:
    d, args, c = H.dual_args(m, n, k, 1, "competition")
    base = DualGemmTilesPlan(m, n, k, 1)
    bt = render(TEXT, "sm_90a", base.constants)
    plans = {nm: s28h.swap(DualGemmTilesPlan(m, n, k, 1), PROBES[nm](bt)) for nm in ("base", "el")}
    for nm, p in plans.items():
        H.check_dual(p, m, n, k, 1, f"dual {m}x{n}x{k} {nm}")
        wd.arm(nm); p(*args); driver.call("cuCtxSynchronize"); wd.disarm()
    s28h.keep.append((plans, args, d, c))
    res = {nm: [] for nm in plans}
    for rnd in range(3):
        for nm, p in plans.items():
            res[nm].append(s28h.best(lambda p=p: p(*args)))
    print(f"dual {m}x{n}x{k} {base!r}", flush=True)
    for nm in plans:
        print(f"  dual {m}x{n}x{k} {nm:6s} whole " + " ".join(f"{a:.2f}" for a in res[nm]), flush=True)
print("FAILS:", H.FAILS, "done", time.strftime("%H:%M:%S"), flush=True)
