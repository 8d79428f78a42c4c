"""Session 12 A/B of GEMM cluster kernel text variants (whole call and kernel alone, L2 cleared, best of three
medians, outputs checked and compared bit for bit with the committed kernel)."""
import re, sys
import numpy as np
sys.path.insert(0, ".scratch/s12")
import nvfp4rt
from nvfp4rt import data, reference
from nvfp4rt.array import asarray
from nvfp4rt.bench import time_op
from nvfp4rt.module import load
from nvfp4rt.ops import gemm_wgmma_cluster as GCm
from nvfp4rt.ops.gemm_wgmma_cluster import GemmClusterPlan


def fma_negz(t):
    f = re.sub(r"mul\.rn\.f16x2 (%\w+), (%\w+), (%sw[01]);", r"fma.rn.f16x2 \1, \2, \3, %negz;", t)
    i = f.index("    .reg ")
    f = f[:i] + "    .reg .b32 %negz;\n" + f[i:]
    return f.replace("UNIT_LOOP:\n", "    mov.b32 %negz, 0x80008000;\nUNIT_LOOP:\n", 1)


def best(f):
    return min(time_op(f, iters=60).median_us for _ in range(3))


def run(texts, shapes):
    print(nvfp4rt.device().properties.name, flush=True)
    for (m, n, k) in shapes:
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
            devs["c"].fill(np.nan)
            p.run(*args)
            outs[nm] = devs["c"].numpy().copy()
            ok = reference.check(outs[nm].transpose(1, 2, 0), ref).ok
            res[nm] = (best(lambda: p.run(*args)), best(p._launch.launch), ok)
        print(f"{m}x{n}x{k} {p!r}", flush=True)
        for nm, (w, kk, ok) in res.items():
            same = np.array_equal(outs[nm].view(np.uint16), outs["committed"].view(np.uint16))
            print(f"   {nm:12s} whole {w:7.2f} kernel {kk:7.2f} {'ok' if ok else 'FAIL'} {'bit-identical' if same else 'DIFFERENT BITS'}",
                  flush=True)


if __name__ == "__main__":
    base = open("ptx/gemm_nvfp4_wgmma_cluster.ptx").read()
    run({"committed": base, "fma_negz": fma_negz(base)},
        ((128, 7168, 16384), (128, 4096, 7168), (128, 7168, 2048)))
