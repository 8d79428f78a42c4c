"""Session 28, device run 1: what a 64-row m tile would cost.  The cluster GEMM computes C^T = B A^T with A16's m rows
as wgmma's N, so a tile of at most 64 rows can run m64n64k16 on the first 32 accumulators (exact for m <= 64).
(A) K-split GEMMs with m = 64: the committed n128 build against that n64 build (exact, checked), kernel alone.
(B) grouped case 1 on the m-tile plan, whole / kernel alone, and the n64 build of it (timing only).
(C) the stream-K GEMM at m = 1024 ... 1408 (8-11 m tiles) x 4096 x 7168: the time per m tile.
Best of 3 medians of 40 (us), two interleaved rounds, L2 cleared."""
import os, sys, time
import numpy as np
sys.path.insert(0, "tools"); sys.path.insert(0, ".scratch/s28")
from hang_watchdog import Watchdog
import nvfp4rt
from nvfp4rt import driver
from nvfp4rt.bench import time_op, get_op
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
ACC128 = "{" + ", ".join(f"%acc{i}" for i in range(64)) + "}"
ACC64 = "{" + ", ".join(f"%acc{i}" for i in range(32)) + "}"
keep = []


def n64(t):
    ins = "wgmma.mma_async.sync.aligned.m64n128k16"
    c = t.count(ins)
    assert c == t.count(ACC128) and c >= 16, (c, t.count(ACC128))
    return t.replace(ins, "wgmma.mma_async.sync.aligned.m64n64k16").replace(ACC128, ACC64)


def swap(p, text):
    mod = load(text, target="sm_90a")
    kern = mod.kernel(G._ENTRY)
    kern.set_max_dynamic_shared(p.shared_mem)
    p.kernel, p._launch, p._repeat = kern, None, None
    if hasattr(p, "_launched_maps"):
        p._launched_maps = {}
    keep.append(mod)
    return p


def best(f, n=3, iters=40):
    wd.arm("timing")
    r = min(time_op(f, iters=iters).median_us for _ in range(n))
    wd.disarm()
    return r


# (A)
for (m, n, k) in [(64, 7168, 16384), (64, 4096, 7168), (64, 7168, 2048), (128, 7168, 16384)]:
    d, args, c = H.gemm_args(m, n, k, 1, "competition")
    plans = {"n128": GemmClusterPlan(m, n, k, 1)}
    plans["n64"] = swap(GemmClusterPlan(m, n, k, 1), n64(render(TEXT, "sm_90a", plans["n128"].constants)))
    for nm, p in plans.items():
        if m <= 64:
            H.check_gemm(p, m, n, k, 1, f"{m}x{n}x{k} {nm}")
        wd.arm(nm); p(*args); driver.call("cuCtxSynchronize"); wd.disarm()
    keep.append((plans, args, d, c))
    res = {nm: [] for nm in plans}
    for rnd in range(2):
        for nm, p in plans.items():
            res[nm].append(best(lambda p=p: p._launch.launch()))
    print(f"(A) {m}x{n}x{k} {plans['n128']!r}", flush=True)
    for nm in plans:
        print(f"(A) {m}x{n}x{k} {nm:5s} kernel alone: " + "  ".join(f"{x:.2f}" for x in res[nm]), flush=True)

# (B)
from nvfp4rt.ops import grouped_gemm as GG
from nvfp4rt.ops.grouped_gemm_mtiles import GroupedGemmMTilePlan
from nvfp4rt.reference import check, gemm_ref
bench = get_op("grouped_gemm")(device=dev)
state = bench.make_inputs({"case": 1}, np.random.default_rng())
layouts = [GG._raw_groups([v])[0][3] for v in state.views]
base = GroupedGemmMTilePlan(state.shapes, layouts)
plans = {"mtiles": base,
         "mtiles n64 (timing only)": swap(GroupedGemmMTilePlan(state.shapes, layouts),
                                         n64(render(TEXT, "sm_90a", base.constants)))}
for nm, p in plans.items():
    for arrs in state.dev:
        arrs["c"].fill(np.nan)
    driver.call("cuCtxSynchronize")
    wd.arm(nm); p(state.views); driver.call("cuCtxSynchronize"); wd.disarm()
    ok = all(check(arrs["c"].numpy().transpose(1, 2, 0), gemm_ref(g.a, g.b, g.sfa, g.sfb)).ok
             for arrs, g in zip(state.dev, state.host.groups))
    print(f"(B) case 1 {nm}: {'OK' if ok else 'FAIL'} {p!r}", flush=True)
res = {nm: [] for nm in plans}
for rnd in range(2):
    for nm, p in plans.items():
        res[nm].append((best(lambda p=p: p(state.views)), best(lambda p=p: p._launch.launch())))
for nm in plans:
    print(f"(B) case 1 {nm:26s} whole / kernel: " + "  ".join(f"{a:.2f} / {b:.2f}" for a, b in res[nm]), flush=True)

# (C)
plans = {}
for m in (1024, 1152, 1280, 1408):
    d, args, c = H.gemm_args(m, 4096, 7168, 1, "competition")
    p = GemmClusterPlan(m, 4096, 7168, 1)
    wd.arm("C"); p(*args); driver.call("cuCtxSynchronize"); wd.disarm()
    plans[m] = (p, args, d, c)
res = {m: [] for m in plans}
for rnd in range(2):
    for m, (p, args, d, c) in plans.items():
        res[m].append((best(lambda p=p, a=args: p(*a)), best(lambda p=p: p._launch.launch())))
for m, (p, *_r) in plans.items():
    print(f"(C) {m}x4096x7168 whole / kernel: " + "  ".join(f"{a:.2f} / {b:.2f}" for a, b in res[m]) + f"  {p!r}",
          flush=True)
print("FAILS:", H.FAILS, "done", time.strftime("%H:%M:%S"), flush=True)
