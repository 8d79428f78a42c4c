"""Session 12 A/B: the GEMM cluster kernel with the integer B decode hoisted above each piece's wgmma.wait_group
(only the scale multiplies stay after it), against the committed kernel, on the three benchmark shapes and two
more; whole calls and kernel alone, L2 cleared, best of three medians; outputs compared bit for bit."""
import sys, os
import numpy as np
sys.path.insert(0, ".scratch/s12")
import hoist
import nvfp4rt
from nvfp4rt import data, reference
from nvfp4rt.array import asarray
from nvfp4rt.bench import time_op
from nvfp4rt.module import load
from nvfp4rt.ops import gemm_wgmma_cluster as GCm
from nvfp4rt.ops.gemm_wgmma_cluster import GemmClusterPlan

def best(f):
    return min(time_op(f, iters=60).median_us for _ in range(3))

print(nvfp4rt.device().properties.name, flush=True)
base = open("ptx/gemm_nvfp4_wgmma_cluster.ptx").read()
texts = {"committed": base, "hoist_int": hoist.hoist_int(base)[0]}
for (m, n, k) in ((128, 7168, 16384), (128, 4096, 7168), (128, 7168, 2048), (256, 4096, 7168), (128, 4096, 16384)):
    d = data.gemm_data(m, n, k, 1, seed=None)
    devs = {nm: asarray(d.physical(nm).view(np.uint8) if nm.startswith("sf") else d.physical(nm))
            for nm in ("a", "b", "sfa", "sfb", "c")}
    args = tuple(devs[nm].transpose(1, 2, 0) for nm in ("a", "b", "sfa", "sfb", "c"))
    ref = reference.gemm_ref(d.a, d.b, d.sfa, d.sfb)
    p = GemmClusterPlan(m, n, k)
    res, outs = {}, {}
    for nm, txt in texts.items():
        kern = load(txt, constants=p.constants, target="sm_90a").kernel(GCm._ENTRY)
        kern.set_max_dynamic_shared(p.shared_mem)
        p.kernel, p._launch = kern, None
        devs["c"].fill(np.nan) if hasattr(devs["c"], "fill") else None
        p.run(*args)
        got = devs["c"].numpy()
        outs[nm] = got.copy()
        ok = reference.check(got.transpose(1, 2, 0), ref).ok
        res[nm] = (best(lambda: p.run(*args)), best(p._launch.launch), ok)
    same = np.array_equal(outs["committed"].view(np.uint16), outs["hoist_int"].view(np.uint16))
    print(f"{m}x{n}x{k} {p!r}", flush=True)
    for nm, (w, kk, ok) in res.items():
        print(f"   {nm:10s} whole {w:7.2f} kernel {kk:7.2f} {'ok' if ok else 'FAIL'}", flush=True)
    print(f"   bit-identical outputs: {same}", flush=True)
