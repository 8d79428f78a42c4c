"""Session 19, device run 1: the decoder warpgroup (DECODE_WG, dec_bufs) against the consumers' own decode.
Correctness of every build (stream-K clusters 1/2/4, K splits 2/4/8, pairs, dual whole tiles and clusters of 2) on
fresh data, NaN-poisoned, both distributions; then whole calls and kernel alone, L2 cleared, interleaved rounds."""
import sys, time
import numpy as np
sys.path.insert(0, "tools")
from hang_watchdog import Watchdog
import nvfp4rt
from nvfp4rt import data, reference, driver
from nvfp4rt.bench import time_op
from nvfp4rt.array import asarray
from nvfp4rt.ops.gemm_wgmma_cluster import GemmClusterPlan
from nvfp4rt.ops.dual_gemm_tiles import DualGemmTilesPlan

wd = Watchdog(60)
dev = nvfp4rt.device()
print(dev.properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)
FAILS = []


def gemm_args(m, n, k, l, dist):
    d = data.gemm_data(m, n, k, l, seed=None, distribution=dist)
    dv = {nm: asarray(d.physical(nm).view(np.uint8) if nm.startswith("sf") else d.physical(nm))
          for nm in ("a", "b", "sfa", "sfb")}
    c = asarray(np.full((l, m, n), np.nan, np.float16))
    args = tuple(dv[nm].transpose(1, 2, 0) for nm in ("a", "b", "sfa", "sfb")) + (c.transpose(1, 2, 0),)
    return d, args, c


def check_gemm(p, m, n, k, l, tag):
    for dist in ("competition", "wide"):
        d, args, c = gemm_args(m, n, k, l, dist)
        wd.arm(tag); p(*args); driver.call("cuCtxSynchronize"); wd.disarm()
        res = reference.check(c.numpy().transpose(1, 2, 0), reference.gemm_ref(d.a, d.b, d.sfa, d.sfb))
        print(f"  {tag} {dist}: {'OK' if res.ok else 'FAIL ' + str(res)}", flush=True)
        if not res.ok:
            FAILS.append(tag)


def dual_args(m, n, k, l, dist):
    d = data.dual_gemm_data(m, n, k, l, seed=None, distribution=dist)
    dv = {nm: asarray(d.physical(nm).view(np.uint8) if nm.startswith("sf") else d.physical(nm))
          for nm in ("a", "b1", "b2", "sfa", "sfb1", "sfb2")}
    c = asarray(np.full((l, m, n), np.nan, np.float16))
    args = tuple(dv[nm].transpose(1, 2, 0) for nm in ("a", "b1", "b2", "sfa", "sfb1", "sfb2")) + (c.transpose(1, 2, 0),)
    return d, args, c


def check_dual(p, m, n, k, l, tag):
    for dist in ("competition", "wide"):
        d, args, c = dual_args(m, n, k, l, dist)
        wd.arm(tag); p(*args); driver.call("cuCtxSynchronize"); wd.disarm()
        res = reference.check(c.numpy().transpose(1, 2, 0),
                              reference.dual_gemm_silu_ref(d.a, d.b1, d.b2, d.sfa, d.sfb1, d.sfb2))
        print(f"  {tag} {dist}: {'OK' if res.ok else 'FAIL ' + str(res)}", flush=True)
        if not res.ok:
            FAILS.append(tag)


print("== correctness", flush=True)
for (m, n, k, l) in [(129, 257, 448, 2), (200, 300, 4096, 1), (128, 1024, 2048, 1), (1, 7168, 2048, 1)]:
    for kw in (dict(cluster=1), dict(cluster=2), dict(cluster=4), dict(ksplit=2), dict(ksplit=4), dict(ks_stream=True),
               dict()):
        if kw.get("ksplit") == 4 and -(-k // 256) % 4:
            continue
        if (kw.get("ks_stream") or kw.get("ksplit") == 2) and -(-k // 256) % 2:
            continue
        for dec in (3, 4):
            tag = f"gemm {m}x{n}x{k}x{l} {kw} dec={dec}"
            try:
                p = GemmClusterPlan(m, n, k, l, dec_bufs=dec, **kw)
            except ValueError as e:
                print(f"  {tag}: skipped ({e})", flush=True)
                continue
            check_gemm(p, m, n, k, l, tag + f" {p!r}")
for (m, n, k, l) in [(256, 4096, 7168, 1), (129, 200, 512, 2), (256, 3072, 4096, 1)]:
    for kw in (dict(), dict(cluster=2)):
        p = DualGemmTilesPlan(m, n, k, l, dec_bufs=4, **kw)
        check_dual(p, m, n, k, l, f"dual {m}x{n}x{k}x{l} {kw} dec=4 {p!r}")
print("FAILS:", FAILS, flush=True)


def best(f, n=3, iters=40):
    wd.arm("timing")
    r = min(time_op(f, iters=iters).median_us for _ in range(n))
    wd.disarm()
    return r


print("== timing (us, whole call / kernel alone, best of 3 medians, L2 cleared)", flush=True)
keep = []
for (m, n, k) in [(128, 7168, 16384), (128, 4096, 7168), (128, 7168, 2048)]:
    d, args, c = gemm_args(m, n, k, 1, "competition")
    plans = {dec: GemmClusterPlan(m, n, k, 1, dec_bufs=dec) for dec in (0, 2, 3, 4)}
    keep.append((args, plans))
    for dec, p in plans.items():
        p(*args)
    driver.call("cuCtxSynchronize")
    res = {dec: [] for dec in plans}
    for rnd in range(2):
        for dec, p in plans.items():
            res[dec].append((best(lambda p=p: p(*args)), best(lambda p=p: p._launch.launch())))
    for dec, p in plans.items():
        print(f"gemm {m}x{n}x{k} dec={dec}: " + "  ".join(f"{a:.2f}/{b:.2f}" for a, b in res[dec]) + f"  {p!r}",
              flush=True)
for (m, n, k) in [(256, 4096, 7168), (256, 3072, 4096)]:
    d, args, c = dual_args(m, n, k, 1, "competition")
    plans = {dec: DualGemmTilesPlan(m, n, k, 1, dec_bufs=dec) for dec in (0, 2, 3, 4)}
    keep.append((args, plans))
    for dec, p in plans.items():
        p(*args)
    driver.call("cuCtxSynchronize")
    res = {dec: [] for dec in plans}
    for rnd in range(2):
        for dec, p in plans.items():
            res[dec].append((best(lambda p=p: p(*args)), best(lambda p=p: p._launch.launch())))
    for dec, p in plans.items():
        print(f"dual {m}x{n}x{k} dec={dec}: " + "  ".join(f"{a:.2f}/{b:.2f}" for a, b in res[dec]) + f"  {p!r}",
              flush=True)
print("done", time.strftime("%H:%M:%S"), flush=True)
