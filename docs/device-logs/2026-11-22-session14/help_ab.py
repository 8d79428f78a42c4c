"""Session 14: the K split with tail helpers (KS_HELP).  Correctness (float64 reference, both distributions, NaN-
poisoned output, repeats bit-identical, counters left zero) on forced fast / slow / finish paths, then timing of the
whole call and the kernel alone against the plain K split and the current auto choice (L2 cleared, best of 3)."""
import ctypes, sys, time
import numpy as np
import nvfp4rt
from nvfp4rt import data, reference, driver
from nvfp4rt.array import asarray
from nvfp4rt.bench import time_op
from nvfp4rt.ops.gemm_wgmma_cluster import GemmClusterPlan

dev = nvfp4rt.device()
print(dev.properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)


def best(f):
    return min(time_op(f, iters=60).median_us for _ in range(3))


def counters(p):
    n = p.geometry.counters
    buf = np.zeros(n, np.uint32)
    driver.call("cuCtxSynchronize")
    driver.call("cuMemcpyDtoH", buf.ctypes.data, p._counters.ptr, 4 * n)
    return buf


def setup(m, n, k, l, dist):
    d = data.gemm_data(m, n, k, l, seed=None, distribution=dist)
    devs = {nm: asarray(d.physical(nm).view(np.uint8) if nm.startswith("sf") else d.physical(nm))
            for nm in ("a", "b", "sfa", "sfb", "c")}
    args = tuple(devs[nm].transpose(1, 2, 0) for nm in ("a", "b", "sfa", "sfb", "c"))
    return d, devs, args, reference.gemm_ref(d.a, d.b, d.sfa, d.sfb)


def check(p, m, n, k, l, dist="competition"):
    d, devs, args, ref = setup(m, n, k, l, dist)
    devs["c"].fill(np.nan)
    p.run(*args)
    out = devs["c"].numpy().copy()
    res = reference.check(out.transpose(1, 2, 0), ref)
    ok = res.ok
    for _ in range(3):
        devs["c"].fill(np.nan)
        p.run(*args)
        ok = ok and np.array_equal(devs["c"].numpy().view(np.uint16), out.view(np.uint16))
    cz = not counters(p).any()
    return ok and cz, f"{'ok' if res.ok else 'FAIL ' + str(res)} repeat+counters {'ok' if ok and cz else 'FAIL'}", args


mode = sys.argv[1] if len(sys.argv) > 1 else "all"
fails = 0
if mode in ("all", "check"):
    cases = [  # (m, n, k, l, plan kwargs)
        (128, 7168, 16384, 1, {"help_tail": 8}),
        (128, 7168, 16384, 1, {"help_tail": 9}),
        (128, 4096, 7168, 1, {"help_tail": 12}),
        (128, 1024, 4096, 1, {"help_tail": 4, "helpers": 2}),      # helpers late: the pairs write S, a helper finishes
        (128, 1024, 4096, 1, {"help_tail": 1, "helpers": 8}),      # helpers early: the pairs copy W
        (200, 3000, 4096, 1, {"help_tail": 3}),
        (1, 256, 2304, 1, {"help_tail": 4}),                       # odd stages: 5 for the pair (3 + 2)
        (130, 520, 3072, 2, {"help_tail": 5, "helpers": 6}),
        (64, 7168, 4096, 1, {"help_tail": 3}),
        (256, 4096, 7168, 1, {"help_tail": 6, "helpers": 4}),
        (77, 333, 1792, 3, {"help_tail": 2, "helpers": 4}),
    ]
    for m, n, k, l, kw in cases:
        p = GemmClusterPlan(m, n, k, l, **kw)
        for dist in ("competition", "wide"):
            ok, msg, _ = check(p, m, n, k, l, dist)
            fails += not ok
            print(f"{m}x{n}x{k}x{l} {kw} {dist}: {p!r} grid={p.geometry.grid} upc={p.geometry.help_upc} "
                  f"slots={p.geometry.help_slots}: {msg}", flush=True)
if mode in ("all", "time"):
    cases = [((128, 7168, 16384), [{}, {"ksplit": 2}, {"help_tail": 6}, {"help_tail": 8}, {"help_tail": 9},
                                   {"help_tail": 10}, {"help_tail": 12}]),
             ((128, 4096, 7168), [{}, {"help_tail": 0}, {"help_tail": 10}, {"help_tail": 12}, {"help_tail": 14}]),
             ((128, 7168, 2048), [{}, {"help_tail": 2}]),
             ((256, 4096, 7168), [{}]),
             ((64, 7168, 4096), [{}, {"help_tail": 2}])]
    for (m, n, k), kws in cases:
        for kw in kws:
            p = GemmClusterPlan(m, n, k, **kw)
            ok, msg, args = check(p, m, n, k, 1)
            fails += not ok
            w = best(lambda: p.run(*args))
            kk = best(p._launch.launch)
            print(f"{m}x{n}x{k} {kw}: {p!r} whole {w:7.2f} kernel {kk:7.2f} {msg}", flush=True)
print("FAILURES", fails)
