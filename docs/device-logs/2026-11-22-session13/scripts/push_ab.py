"""Session 13: the K split's push exchange (cp.async.bulk into the peers' drained rings, split phase-1 cluster
barrier, no exit barrier) against the committed pull (cluster barrier + DSMEM loads + exit barrier).  Whole call and
kernel alone, L2 cleared, best of three medians; outputs checked against float64 and compared bit for bit."""
import subprocess, sys
import numpy as np
import nvfp4rt
from nvfp4rt import data, reference
from nvfp4rt.array import asarray
from nvfp4rt.bench import time_op
from nvfp4rt.module import load
from nvfp4rt.ops import gemm_wgmma_cluster as GCm
from nvfp4rt.ops.gemm_wgmma_cluster import GemmClusterPlan

old = subprocess.run(["git", "show", "HEAD:ptx/gemm_nvfp4_wgmma_cluster.ptx"], capture_output=True, text=True,
                     check=True).stdout
new = open("ptx/gemm_nvfp4_wgmma_cluster.ptx").read()


def best(f):
    return min(time_op(f, iters=60).median_us for _ in range(3))


print(nvfp4rt.device().properties.name, flush=True)
cases = [((128, 7168, 16384), {}), ((128, 7168, 2048), {}), ((64, 7168, 4096), {}), ((256, 4096, 7168), {}),
         ((128, 2048, 7168), {"ksplit": 4}), ((128, 4096, 4096), {"ksplit": 8}), ((200, 3000, 4096), {"ksplit": 2}),
         ((128, 7168, 2048), {"ksplit": 2, "consumer_wgs": 3, "stages": 4, "a_bufs": 4}),
         ((128, 2048, 4096), {"ksplit": 4, "consumer_wgs": 3, "stages": 4, "a_bufs": 4})]
for (m, n, k), kw in cases:
    d = data.gemm_data(m, n, k, 1, seed=None)
    devs = {nm: asarray(d.physical(nm).view(np.uint8) if nm.startswith("sf") else d.physical(nm))
            for nm in ("a", "b", "sfa", "sfb", "c")}
    args = tuple(devs[nm].transpose(1, 2, 0) for nm in ("a", "b", "sfa", "sfb", "c"))
    ref = reference.gemm_ref(d.a, d.b, d.sfa, d.sfb)
    p = GemmClusterPlan(m, n, k, **kw)
    res, outs = {}, {}
    for nm, txt in (("pull", old), ("push", new), ("pull2", old), ("push2", new)):
        kern = load(txt, constants=p.constants, target="sm_90a").kernel(GCm._ENTRY)
        kern.set_max_dynamic_shared(p.shared_mem)
        p.kernel, p._launch = kern, None
        devs["c"].fill(np.nan)
        p.run(*args)
        outs[nm] = devs["c"].numpy().copy()
        ok = reference.check(outs[nm].transpose(1, 2, 0), ref).ok
        for _ in range(3):  # repeats: the same bits
            devs["c"].fill(np.nan)
            p.run(*args)
            ok = ok and np.array_equal(devs["c"].numpy().view(np.uint16), outs[nm].view(np.uint16))
        res[nm] = (best(lambda: p.run(*args)), best(p._launch.launch), ok)
    print(f"{m}x{n}x{k} {kw} {p!r}", flush=True)
    for nm, (w, kk, ok) in res.items():
        same = np.array_equal(outs[nm].view(np.uint16), outs["pull"].view(np.uint16))
        print(f"   {nm:6s} whole {w:7.2f} kernel {kk:7.2f} {'ok' if ok else 'FAIL'} "
              f"{'bit-identical to pull' if same else 'DIFFERENT BITS'}", flush=True)
